"""The upstream page and the overview show each upstream's state, last error and stderr."""

import sys
from types import SimpleNamespace

import pytest
from django.urls import reverse

from gateway import runtime
from gateway.listings import PENDING, UpstreamListing
from gateway.upstream_status import upstream_health
from gateway.upstreams import UpstreamSpec
from tests.e2e.live import SERVERS
from tests.factories import UpstreamFactory

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
