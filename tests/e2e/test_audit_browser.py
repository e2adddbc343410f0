"""The audit trail in a browser: calls and an admin edit listed at 1400 px, exported as JSON
lines over daphne with the list's filters, and nothing to change or delete.

With LOCALROUTER_UPDATE_SCREENSHOTS=1 the screenshot goes to docs/screenshots/audit.png.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from playwright.sync_api import Browser, Page, expect

from tests.e2e.live import (
    LiveGateway,
    create_superuser,
    start_gateway,
    stdio_upstream,
    stop_gateway,
)
from tests.e2e.test_admin_browser import (  # the browser and login are shared
    CHROMIUM,
    PASSWORD,
    admin_url,
    browser,  # noqa: F401  (a fixture)
    log_in,
    screenshot,
    wait_until,
)
from tests.e2e.test_audit_trail import _events

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
CALLS = 7


@pytest.fixture(scope="module")
def gateway(tmp_path_factory) -> Iterator[LiveGateway]:
    clients = [{"name": "alice", "set": {"response_threshold": 2048}}, {"name": "ci-bot"}]
    live = start_gateway(
        tmp_path_factory.mktemp("audit-browser"),
        [stdio_upstream("echo", "echo_server.py")],
        clients,
    )
    try:
        create_superuser(live, PASSWORD)
        yield live
    finally:
        stop_gateway(live)


async def _calls(live: LiveGateway) -> None:
    async with live.client("alice") as alice, live.client("ci-bot") as bot:
        await alice.call_tool("echo__echo", {"text": "hello"})
        await alice.call_tool("echo__big_text", {"size": 40_000})
        await alice.call_tool("IndexSearch", {"queries": ["xxxx"]})
        await bot.call_tool("echo__fail", {"message": "no"})
        with pytest.raises(MCPError):
            await bot.call_tool("echo__no_such_tool", {})
        await bot.read_resource("fixture://hello")
        await alice.get_prompt("echo__greet", {"name": "Ada"})


def make_calls(live: LiveGateway) -> None:
    """The calls, from a thread of their own (Playwright's sync API holds this one)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            anyio.run(_calls, live)
        except BaseException as error:  # reported to the test
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(120)
    assert not thread.is_alive() and not errors, errors


@pytest.fixture
def wide(browser: Browser) -> Iterator[Page]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(15_000)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_audit_list_shows_calls_and_changes_and_exports_them(
    wide: Page, gateway: LiveGateway, tmp_path: Path
):
    make_calls(gateway)
    wait_until(lambda: len(gateway.orm(_events)) >= CALLS, seconds=30, what="the call events")
    log_in(wide, gateway)
    wide.goto(admin_url(gateway, "gateway/upstream/?q=echo"))
    wide.locator("#result_list").get_by_role("link", name="echo").click()
    wide.fill("#id_notes", "owned by the platform team")
    wide.click("input[name=_save]")
    expect(wide.locator(".messagelist")).to_contain_text("was changed successfully")

    wide.goto(admin_url(gateway, "gateway/auditevent/"))
    rows = wide.locator("#result_list tbody tr")
    expect(rows).to_have_count(2 + CALLS + 1)  # the two clients added, the calls, the edit
    expect(rows.first).to_contain_text("changed upstream echo: Notes")
    expect(wide.locator("#result_list")).to_contain_text("unknown_tool")
    assert wide.evaluate("document.documentElement.scrollWidth") <= 1400
    fits = "r => r.scrollWidth <= r.clientWidth"
    assert wide.locator("#changelist .results").evaluate(fits), "the list is wider than its place"
    assert wide.locator(".object-tools .addlink, #changelist-form [name=action]").count() == 0
    screenshot(wide, "audit.png", tmp_path)

    # The export link carries the list's filters; over daphne it streams JSON lines.
    wide.goto(admin_url(gateway, "gateway/auditevent/?client_name=ci-bot"))
    href = wide.locator("#export-audit").get_attribute("href")
    assert href is not None and href.endswith("?client_name=ci-bot")
    response = wide.request.get(admin_url(gateway, href.removeprefix("/admin/")))
    assert response.ok and response.headers["content-type"].startswith("application/jsonl")
    exported = [json.loads(line) for line in response.text().splitlines()]
    assert {e["client_name"] for e in exported} == {"ci-bot"}
    assert [(e["kind"], e["name"], e.get("outcome")) for e in exported] == [
        ("change", "ci-bot", None),  # the client was added
        ("tool", "fail", "error"),
        ("tool", "echo__no_such_tool", "unknown"),
        ("resource", "fixture://hello", "ok"),
    ]
