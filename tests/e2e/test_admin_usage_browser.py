"""The upstream page, the live sessions page and a client's catalog preview in a browser.

With LOCALROUTER_UPDATE_SCREENSHOTS=1 the screenshots go to docs/screenshots/ for the README.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from playwright.sync_api import expect

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
    page,  # noqa: F401  (a fixture; it opens pages on this module's gateway)
    screenshot,
)

SECRET = "sk-live-0123456789abcdef"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory) -> Iterator[LiveGateway]:
    upstreams = [
        {**stdio_upstream("echo", "echo_server.py"), "env": {"API_KEY": SECRET}},
        {**stdio_upstream("broken", "fails_to_start.py"), "env": {"API_KEY": SECRET}},
    ]
    live = start_gateway(
        tmp_path_factory.mktemp("usage-browser"),
        upstreams,
        [{"name": "alice", "set": {"catalog_threshold": 3_200}}, {"name": "bob"}],
    )
    try:
        create_superuser(live, PASSWORD)
        yield live
    finally:
        stop_gateway(live)


class BusySessions:
    """Two MCP sessions kept open in a thread: alice waits on a slow call, bob is idle."""

    def __init__(self, live: LiveGateway) -> None:
        self.live = live
        self.ready = threading.Event()
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BusySessions:
        self._thread.start()
        assert self.ready.wait(60) and self.error is None, f"sessions failed: {self.error!r}"
        return self

    def __exit__(self, *exc) -> None:
        self.finished.set()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            anyio.run(self._sessions)
        except BaseException as error:  # reported to the test
            self.error = error
            self.ready.set()

    async def _sessions(self) -> None:
        async with (
            self.live.client("alice") as alice,
            self.live.client("bob") as bob,
            anyio.create_task_group() as tg,
        ):
            await alice.call_tool("echo__complain", {"name": "API_KEY"})
            await alice.call_tool("echo__echo", {"text": "x" * 40_000})
            await bob.list_tools()
            tg.start_soon(alice.call_tool, "echo__sleep", {"seconds": 60})
            await anyio.sleep(0.5)
            self.ready.set()
            await anyio.to_thread.run_sync(self.finished.wait)
            tg.cancel_scope.cancel()


def test_live_sessions_and_an_upstreams_stderr_are_on_their_pages(page, gateway, tmp_path):  # noqa: F811
    with BusySessions(gateway):
        log_in(page, gateway)
        page.goto(admin_url(gateway, "indexing/sessionrecord/overview/"))
        page.click("#live-sessions-link")
        table = page.locator("#live-sessions")
        expect(table).to_contain_text("alice")
        expect(table).to_contain_text("bob")
        expect(table.locator(".in-flight")).to_have_text("echo")
        screenshot(page, "live-sessions.png", tmp_path)

        page.goto(admin_url(gateway, "gateway/upstream/?q=echo"))
        page.click("text=echo")
        stderr = page.locator("#upstream-stderr")
        expect(stderr).to_contain_text("starting with API_KEY=[redacted]")
        assert SECRET not in page.content()

        page.goto(admin_url(gateway, "gateway/upstream/?q=broken"))
        page.click("text=broken")
        expect(page.locator("#upstream-status")).to_contain_text("failing")
        expect(page.locator("#upstream-last-error")).to_contain_text(
            "closed the connection during the handshake"
        )
        expect(page.locator("#upstream-stderr")).to_contain_text("fixture: refusing to start")
        assert SECRET not in page.content()
        screenshot(page, "upstream-stderr.png", tmp_path)


def test_a_clients_catalog_preview_shows_listed_and_deferred_tools(page, gateway, tmp_path):  # noqa: F811
    with BusySessions(gateway):  # alice used echo__complain and echo__echo
        log_in(page, gateway)
        page.goto(admin_url(gateway, "clients/client/?q=alice"))
        page.click("text=alice")
        page.click("#catalog-preview-link")
        table = page.locator("#catalog-preview")
        used = table.locator("tr.listed", has_text="echo__complain")
        for _ in range(60):  # session records (the usage) are written every 10 s
            if used.count() and "used recently" in used.inner_text():
                break
            page.wait_for_timeout(500)
            page.reload()
        expect(used).to_contain_text("used recently")
        expect(table.locator("tr.deferred").first).to_contain_text("IndexSearch finds")
        expect(page.locator("#catalog-summary")).to_contain_text("tools listed")
        screenshot(page, "catalog-preview.png", tmp_path)
