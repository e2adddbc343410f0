"""Upstream health on the upstream list, a staff member's view of an HTTP upstream, and
lists that fit a 1400 px window, in Debian's chromium against daphne on loopback.

With LOCALROUTER_UPDATE_SCREENSHOTS=1 the screenshots go to docs/screenshots/ for the README.
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator

import anyio
import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from playwright.sync_api import Page, expect

from indexing.reports.models import IndexedLabel, SessionRecord
from tests.e2e import test_admin_browser as browser_tests
from tests.e2e.live import (
    LiveGateway,
    create_superuser,
    start_gateway,
    stdio_upstream,
    stop_gateway,
)
from tests.e2e.test_admin_browser import PASSWORD, admin_url, log_in, screenshot, wait_until
from tests.fixtures.http_server import free_port

# The browser, its page (on this module's gateway) and the skip without chromium are shared.
browser = browser_tests.browser
page = browser_tests.page
pytestmark = browser_tests.pytestmark

SECRET = "sk-live-0123456789abcdef"
VIEWER_PASSWORD = "pw-viewer-0123"
LONG_TOOL = "team-knowledge-base-search__find_documents_by_owner_and_date"
# Started by the client session: one connects, four fail, one never answers; the others
# are not used (one of them could not start).
USED = ["echo", "broken", "no-command", "needs-token", "hangs", "team-knowledge-base-search"]
EXPECTED = {
    "echo": "ok",
    "broken": "failing",
    "no-command": "failing",
    "needs-token": "failing",
    "hangs": "starting",
    "team-knowledge-base-search": "failing",
    "spare": "idle",
    "not-installed": "failing",
    "off": "disabled",
}


def upstreams(port: int) -> list[dict]:
    return [
        {**stdio_upstream("echo", "echo_server.py"), "env": {"API_KEY": SECRET}},
        stdio_upstream("broken", "fails_to_start.py"),
        {"name": "no-command", "transport": "stdio", "command": "/nonexistent/mcp-server"},
        {**stdio_upstream("needs-token", "echo_server.py"), "env": {"T": "${LR_UNSET_TOKEN_33}"}},
        {
            "name": "hangs",  # never answers; reads its stdin until the gateway stops
            "transport": "stdio",
            "command": sys.executable,
            "args": ["-c", "import sys; sys.stdin.read()"],
            "timeout_seconds": 600,  # its start times out after that: "starting" meanwhile
        },
        {
            "name": "team-knowledge-base-search",  # nothing listens on its port
            "transport": "http",
            "url": f"http://reader:{SECRET}@127.0.0.1:{port}/mcp?api_key={SECRET}",
            "headers": {"Authorization": f"Bearer {SECRET}", "X-Team": "${TEAM:-platform}"},
        },
        stdio_upstream("spare", "echo_server.py"),
        {"name": "not-installed", "transport": "stdio", "command": "mcp-not-there"},
        {**stdio_upstream("off", "echo_server.py"), "enabled": False},
    ]


def add_viewer_and_reports() -> None:
    """A staff member who may only view upstreams, and reports with long names in them."""
    viewer = User.objects.create_user("viewer", password=VIEWER_PASSWORD, is_staff=True)
    codenames = ["view_upstream", "view_sessionrecord", "view_indexedlabel"]
    viewer.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    call_command("demo_data", sessions=6, days=7, stdout=io.StringIO())
    record = SessionRecord.objects.order_by("-started_at").first()
    record.calls_by_tool = {LONG_TOOL: 900, LONG_TOOL.replace("owner_and_date", "title"): 800}
    record.save()
    IndexedLabel.objects.create(
        session=record, label=f"{LONG_TOOL}:1", tool=LONG_TOOL, run=1, original_bytes=3_500_000,
        delivered_bytes=4_000, lines=61_000, chunks=900, seconds_to_index=0.42,
    )  # fmt: skip


@pytest.fixture(scope="module")
def gateway(tmp_path_factory) -> Iterator[LiveGateway]:
    port = free_port()
    live = start_gateway(
        tmp_path_factory.mktemp("health-browser"),
        upstreams(port),
        [{"name": "alice", "upstreams": USED}],
        # A session waits this long for upstreams to start, not for the one that never does.
        LOCALROUTER_UPSTREAM_START_BUDGET="10",
    )
    live.extra["remote_port"] = port
    try:
        create_superuser(live, PASSWORD)
        live.orm(add_viewer_and_reports)
        run_in_thread(lambda: first_session(live))
        yield live
    finally:
        stop_gateway(live)


async def first_session(live: LiveGateway) -> None:
    """alice's session starts her upstreams; echo writes an ordinary line to its stderr."""
    async with live.client("alice") as alice:
        with anyio.fail_after(60):
            while "echo__complain" not in {t.name for t in (await alice.list_tools()).tools}:
                await anyio.sleep(0.2)  # echo joins late on a busy machine
        await alice.call_tool("echo__complain", {"name": "API_KEY"})


def run_in_thread(session) -> None:
    """Run an async function to its end in a thread of its own (Playwright owns this one's
    event loop), re-raising what it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            anyio.run(session)
        except BaseException as error:  # handed to the caller
            errors.append(error)

    thread = threading.Thread(target=run, name="health-session", daemon=True)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the MCP session did not finish"
    if errors:
        raise errors[0]


def health_levels(page: Page) -> dict[str, str]:
    levels = {}
    for row in page.locator("#result_list tbody tr").all():
        name = row.locator("th.field-name").inner_text()
        levels[name] = row.locator(".health").get_attribute("class").split("health-")[-1]
    return levels


def assert_fits(page: Page, width: int) -> None:
    """Neither the page nor the list's table scrolls sideways, and no cell spills over."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    results = page.locator("#changelist .results")
    assert results.evaluate("r => r.scrollWidth <= r.clientWidth"), "the list scrolls sideways"
    spilled = page.evaluate(
        """() => [...document.querySelectorAll('#result_list td, #result_list th')]
            .filter(cell => cell.scrollWidth > cell.clientWidth + 1)
            .map(cell => cell.className)"""
    )
    assert not spilled, f"cells wider than their column: {spilled}"


def test_the_upstream_list_shows_each_upstreams_health_and_fits_1400_px(
    page: Page, gateway: LiveGateway, tmp_path
):
    page.set_viewport_size({"width": 1400, "height": 900})
    log_in(page, gateway)
    url = admin_url(gateway, "gateway/upstream/")

    def settled() -> dict[str, str] | None:
        page.goto(url)
        levels = health_levels(page)
        return levels if levels == EXPECTED else None

    levels = wait_until(settled, seconds=60, what=f"health as expected: {EXPECTED}")
    assert levels == EXPECTED

    def badge(name: str):
        named = page.get_by_role("link", name=name, exact=True)
        return page.locator("#result_list tbody tr", has=named).locator(".health")

    expect(badge("no-command")).to_contain_text("failing: could not start '/nonexistent/mcp-se")
    whole = "could not start '/nonexistent/mcp-server': No such file or directory"
    assert whole in badge("no-command").get_attribute("title")
    # Told before any client needs it, from its settings alone.
    expect(badge("not-installed")).to_have_text("won't start: command not found: mcp-not-there")
    green = "rgb(46, 125, 50)"
    for name, level in EXPECTED.items():
        dot = badge(name).evaluate("badge => getComputedStyle(badge, '::before').backgroundColor")
        assert (dot == green) == (level == "ok"), f"{name} ({level}) has a {dot} dot"
    assert SECRET not in page.content()
    assert_fits(page, 1400)
    screenshot(page, "upstream-list.png", tmp_path)


def test_indexed_labels_fit_1400_px(page: Page, gateway: LiveGateway, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    log_in(page, gateway)
    page.goto(admin_url(gateway, "indexing/indexedlabel/?o=-2"))  # the biggest first
    expect(page.locator("#result_list tbody tr").first).to_contain_text(f"{LONG_TOOL}:1")
    assert_fits(page, 1400)
    screenshot(page, "indexed-labels.png", tmp_path)


def test_a_view_only_staff_member_sees_an_http_upstreams_url_and_headers_masked(
    page: Page, gateway: LiveGateway, tmp_path
):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(admin_url(gateway))
    page.fill("#id_username", "viewer")
    page.fill("#id_password", VIEWER_PASSWORD)
    page.click("input[type=submit]")
    page.goto(admin_url(gateway, "gateway/upstream/"))
    page.click("text=team-knowledge-base-search")
    expect(page.locator("h1")).to_have_text("View upstream")
    http = page.locator("fieldset.transport-http")
    expect(http).to_be_visible()
    expect(page.locator("fieldset.transport-stdio")).to_have_count(0)
    expect(http.locator(".field-masked_url .readonly")).to_have_text(
        f"http://***@127.0.0.1:{gateway.extra['remote_port']}/mcp?api_key=***"
    )
    expect(http.locator(".field-masked_headers pre")).to_have_text(
        "Authorization: ••••••••\nX-Team: ${TEAM:-platform}"
    )
    expect(page.locator(".field-name .help")).to_have_text(
        "Used as the tool prefix: '<name>__<tool>'."
    )
    assert SECRET not in page.content()
    screenshot(page, "upstream-staff-view.png", tmp_path)


def test_the_overview_shows_stderr_only_for_failing_upstreams_and_whole_tool_names(
    page: Page, gateway: LiveGateway
):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "indexing/sessionrecord/overview/?days=30"))
    health = page.locator("#upstream-health")
    expect(health.locator("tr", has_text="broken")).to_contain_text("fixture: refusing to start")
    echo = health.locator("tr", has_text="echo")
    expect(echo).to_contain_text("connected")
    assert "starting with API_KEY" not in echo.inner_text()
    chart = page.locator("svg.chart", has_text="Busiest tools")
    for tool in ("find_documents_by_owner_and_date", "find_documents_by_title"):
        label = chart.locator("text", has_text=tool)
        expect(label).to_have_count(1)
        expect(label.locator("tspan").first).to_have_text("team-knowledge-base-search__")
        frame, box = chart.bounding_box(), label.bounding_box()
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
