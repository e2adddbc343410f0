"""The upstream page, the upstream list and the overview show each upstream's state, last
error and stderr."""

import html
import re
import sys
from types import SimpleNamespace

import anyio
import pytest
from django.urls import reverse

from gateway import runtime
from gateway.catalog.listings import PENDING
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.upstream_config.status import upstream_health
from gateway.upstreams import UpstreamConnection, UpstreamSpec, stderr_tail
from tests.e2e.live import SERVERS
from tests.factories import UpstreamFactory
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def gateway(monkeypatch):
    """This worker's gateway, never started (listings are set by the test)."""
    gateway = runtime.Gateway()
    monkeypatch.setattr(runtime, "_gateway", gateway)
    return gateway


def failing_upstream():
    return UpstreamFactory(
        name="broken",
        command=sys.executable,
        args=[str(SERVERS / "fails_to_start.py")],
        env={"API_KEY": "s3cret-value"},
    )


def test_a_failed_test_connection_shows_the_stderr_and_so_does_the_upstream_page(staff):
    broken = failing_upstream()
    response = staff.post(reverse("admin:gateway_upstream_test", args=[broken.pk]), follow=True)
    page = response.content.decode()
    assert "Could not connect to broken" in page
    assert "Last stderr lines:<pre>fixture: refusing to start</pre>" in page
    assert 'id="upstream-stderr"' in page
    assert "s3cret-value" not in page


def test_the_upstream_page_shows_the_last_error_of_this_worker(staff, gateway):
    broken = failing_upstream()
    spec = UpstreamSpec(name="broken", transport="stdio", command="x")
    gateway.listings._listings["broken"] = UpstreamListing(
        spec=spec, error="upstream 'broken' unavailable: connection refused by http://x/mcp"
    )
    page = staff.get(reverse("admin:gateway_upstream_change", args=[broken.pk])).content.decode()
    assert "failing" in page
    assert "connection refused by http://x/mcp" in page


def test_an_upstream_still_starting_is_shown_as_starting_in_the_overview(staff, gateway):
    UpstreamFactory(name="slow")
    gateway.listings._reads._reads["slow"] = object()  # a read in flight
    page = staff.get(reverse("admin:indexing_sessionrecord_overview")).content.decode()
    assert 'class="state-starting">starting<' in page
    assert PENDING not in page


def test_upstream_health_shows_connected_failing_idle_and_disabled(monkeypatch):
    for name in ("files", "broken", "idle"):
        UpstreamFactory(name=name)
    UpstreamFactory(name="off", enabled=False)
    listings = {
        "files": SimpleNamespace(error=None, tools=[object(), object()]),
        "broken": SimpleNamespace(error="exited with status 3", tools=[]),
    }
    gateway = runtime.Gateway()  # never started; its listings are set here
    gateway.listings._listings.update(listings)
    monkeypatch.setattr(runtime, "_gateway", gateway)
    health = {row.name: (row.state, row.tools, row.error) for row in upstream_health()}
    assert health == {
        "broken": ("failing", None, "exited with status 3"),
        "files": ("connected", 2, None),
        "idle": ("not started", None, None),
        "off": ("disabled", None, None),
    }


def test_upstream_health_without_a_running_gateway_says_not_started(monkeypatch):
    monkeypatch.setattr(runtime, "_gateway", None)
    UpstreamFactory(name="files")
    assert [row.state for row in upstream_health()] == ["not started"]


def health_cells(page: str) -> dict[str, tuple[str, str]]:
    """upstream -> (health level, text) from the upstream list's rows."""
    rows = re.findall(
        r'<th class="field-name"><a [^>]*>([^<]+)</a></th>.*?'
        r'<span class="health health-(\w+)" title="[^"]*">([^<]*)</span>',
        page,
        re.S,
    )
    return {name: (level, html.unescape(text)) for name, level, text in rows}


def test_the_upstream_list_shows_health_so_failing_upstreams_never_look_ok(
    staff, gateway, monkeypatch
):
    monkeypatch.delenv("LR_TEST_UNSET_TOKEN", raising=False)
    for name in ("files", "broken", "slow", "idle"):
        UpstreamFactory(name=name, command=sys.executable)
    UpstreamFactory(name="no-command", command="/nonexistent/mcp-server")
    UpstreamFactory(name="needs-token", command=sys.executable, env={"T": "${LR_TEST_UNSET_TOKEN}"})
    UpstreamFactory(name="off", enabled=False)
    spec = UpstreamSpec(name="x", transport="stdio", command="x")
    tool = SimpleNamespace(name="t")
    gateway.listings._listings["files"] = UpstreamListing(spec=spec, tools=[tool, tool])
    gateway.listings._listings["broken"] = UpstreamListing(
        spec=spec, error="upstream 'broken' crashed: exited with status 3"
    )
    gateway.listings._reads._reads["slow"] = object()  # a start in flight (or hanging)
    page = staff.get(reverse("admin:gateway_upstream_changelist")).content.decode()
    health = health_cells(page)
    level, text = health.pop("needs-token")
    assert level == "failing" and text.startswith("won't start: set LR_TEST_UNSET_TOKEN in the")
    assert health == {
        "broken": ("failing", "failing: exited with status 3"),
        "files": ("ok", "ok: 2 tools"),
        "idle": ("idle", "not started yet"),
        "no-command": ("failing", "won't start: command not found: /nonexistent/mcp-server"),
        "off": ("disabled", "disabled"),
        "slow": ("starting", "starting…"),
    }
    # A reason cut short is whole in the tooltip.
    whole = "won't start: set LR_TEST_UNSET_TOKEN in the gateway's environment (or .env file)"
    assert f'title="{html.escape(whole)}"' in page


def test_an_informational_stderr_line_of_a_healthy_upstream_is_not_its_last_error(staff, gateway):
    UpstreamFactory(name="echo")
    broken = failing_upstream()
    staff.post(reverse("admin:gateway_upstream_test", args=[broken.pk]))  # stderr, then failing

    async def complain() -> None:  # a healthy upstream writes an ordinary line to stderr
        connection = UpstreamConnection(fixture_spec(env={"API_KEY": "sk-0123456789"}))
        try:
            await connection.call_tool("complain", {"name": "API_KEY"})
            with anyio.fail_after(10):
                while not stderr_tail("echo"):
                    await anyio.sleep(0.02)
        finally:
            await connection.aclose()

    anyio.run(complain)
    spec = UpstreamSpec(name="x", transport="stdio", command="x")
    gateway.listings._listings["echo"] = UpstreamListing(spec=spec)
    gateway.listings._listings["broken"] = UpstreamListing(spec=spec, error="exited")
    page = staff.get(reverse("admin:indexing_sessionrecord_overview")).content.decode()
    assert "starting with API_KEY=" not in page
    assert "fixture: refusing to start" in page  # the failing upstream's stderr still is
