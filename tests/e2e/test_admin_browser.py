"""The admin in a real browser: tokens shown once, a live session's report, label content.

Debian's chromium, driven by Playwright's sync API, against daphne on loopback. The MCP
session runs in a background thread with its own event loop, so it stays open while the
browser looks at its report.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import anyio
import django.db.models.query as django_query
import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, expect, sync_playwright

from indexing.reports.models import SessionRecord
from tests.e2e.live import NODE_BIN, LiveGateway, create_superuser, start_gateway, stop_gateway

ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots are refreshed only on request: LOCALROUTER_UPDATE_SCREENSHOTS=1.
SCREENSHOTS = ROOT / "docs" / "screenshots"


def screenshot(page: Page, name: str, tmp_path: Path, part: Locator | None = None) -> None:
    """Take a full-page screenshot, or of `part` of it (into docs/screenshots when asked to
    refresh them)."""
    folder = SCREENSHOTS if os.environ.get("LOCALROUTER_UPDATE_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    if part is not None:
        part.screenshot(path=str(folder / name))
    else:
        page.screenshot(path=str(folder / name), full_page=True)
    assert (folder / name).stat().st_size > 10_000


CHROMIUM = "/usr/bin/chromium"
PASSWORD = "pw-admin-browser-1"
HOSTILE = '<script>window.__pwned = "yes"</script><img src=x onerror="window.__pwned=1">'
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")


def wait_until(check, *, seconds: float, what: str):
    """Poll `check` until it returns something truthy, failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


RECORD_FIELDS = [
    "pk", "key", "client_label", "protocol_version", "call_count", "error_count",
    "bytes_from_upstreams", "bytes_to_client", "catalog_bytes_before", "catalog_bytes_after",
    "items_activated", "searches", "reads",
]  # fmt: skip


def _latest_record() -> dict | None:
    record = SessionRecord.objects.filter(client_label="alice").order_by("-started_at").first()
    if record is None:
        return None
    data = {name: getattr(record, name) for name in RECORD_FIELDS}
    data["ended"] = record.ended_at is not None
    data["labels"] = list(
        record.labels.order_by("id").values("pk", "label", "original_bytes", "lines", "chunks")
    )
    return data


def latest_record(live: LiveGateway) -> dict | None:
    """alice's latest session record as plain values, with its labels."""
    return live.orm(_latest_record)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A large real file (Django's query.py) and a large file with hostile markup."""
    shared = tmp_path_factory.mktemp("browser-files")
    shutil.copy(django_query.__file__, shared / "query.py")
    filler = "\n".join(f"plain line {n} of the hostile page" for n in range(1500))
    (shared / "hostile.html").write_text(f"{HOSTILE}\n{filler}\n")
    return shared


@pytest.fixture(scope="module")
def gateway(tmp_path_factory, folder) -> Iterator[LiveGateway]:
    upstreams = [
        {
            "name": "files",
            "transport": "stdio",
            "command": str(NODE_BIN / "mcp-server-filesystem"),
            "args": [str(folder)],
        }
    ]
    live = start_gateway(tmp_path_factory.mktemp("browser-gateway"), upstreams, [{"name": "alice"}])
    try:
        create_superuser(live, PASSWORD)
        yield live
    finally:
        stop_gateway(live)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


# Every page reports what its Content-Security-Policy blocked (to a function of the test).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => window.__cspViolation(
  `${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
  + ` in ${document.location.pathname} (${event.sourceFile}:${event.lineNumber})`));
"""


@pytest.fixture
def page(browser: Browser, gateway: LiveGateway) -> Iterator[Page]:
    """A page in a fresh context; fails the test if any page it showed broke the CSP."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # A bound, not a wait: a fresh worker's first admin request can take over 15 s on a
    # busy 2-core machine (seen once under the full suite).
    context.set_default_timeout(60_000)
    violations: list[str] = []

    def violation(text: str) -> None:
        violations.append(text)

    context.expose_function("__cspViolation", violation)
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", console)
    try:
        yield page
    finally:
        context.close()
    assert not violations, "Content-Security-Policy violations:\n" + "\n".join(violations)


def admin_url(live: LiveGateway, path: str = "") -> str:
    return live.url.removesuffix("/mcp") + "/admin/" + path


def log_in(page: Page, live: LiveGateway) -> None:
    page.goto(admin_url(live))
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#site-name")).to_be_visible()
    expect(page.locator("#logout-form")).to_have_count(1)


class ScriptedSession:
    """An MCP session through the gateway, kept open until `finish()`; runs in a thread."""

    def __init__(self, live: LiveGateway, folder: Path) -> None:
        self.live, self.folder = live, folder
        self.ready = threading.Event()
        self._finish = threading.Event()
        self.error: BaseException | None = None
        self.placeholders: list[str] = []
        self._thread = threading.Thread(target=self._run, name="scripted-mcp", daemon=True)

    def __enter__(self) -> ScriptedSession:
        self._thread.start()
        if not self.ready.wait(60) or self.error is not None:
            self.finish()
            raise AssertionError(f"the scripted MCP session failed: {self.error!r}")
        return self

    def __exit__(self, *exc) -> None:
        self.finish()

    def finish(self) -> None:
        self._finish.set()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            anyio.run(self._session)
        except BaseException as error:  # reported to the test through `error`
            self.error = error
            self.ready.set()

    async def _session(self) -> None:
        async with self.live.client("alice") as client:
            for name in ("query.py", "hostile.html"):
                result = await client.call_tool(
                    "files__read_text_file", {"path": str(self.folder / name)}
                )
                self.placeholders.append(result.content[0].text)
            label = "files__read_text_file:1"
            await client.call_tool(
                "IndexSearch", {"queries": ["bulk_create batch_size"], "source": label}
            )
            await client.call_tool("IndexRead", {"label": label, "offset": "1", "limit": 5})
            self.ready.set()
            await anyio.to_thread.run_sync(self._finish.wait)


def test_a_new_clients_token_is_shown_once(page: Page, gateway: LiveGateway):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "clients/client/add/"))
    page.fill("#id_name", "browser-client")
    page.click("input[name=_continue]")
    token = page.locator(".messagelist .client-token").inner_text()
    assert token.startswith("lr_")
    expect(page.locator("#snippet-claude-code")).to_contain_text(f"Bearer {token}")
    page.click("#token-done")
    expect(page.locator(".client-token")).to_have_count(0)
    assert token not in page.content()
    expect(page.locator("#snippet-claude-code")).to_contain_text("Bearer <your token>")


def test_regenerating_a_token_asks_first(page: Page, gateway: LiveGateway):
    log_in(page, gateway)
    page.goto(admin_url(gateway, "clients/client/add/"))
    page.fill("#id_name", "regenerated-client")
    page.click("input[name=_continue]")
    first = page.locator(".messagelist .client-token").inner_text()
    page.click("#token-done")
    asked: list[str] = []

    def answer(dialog, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    page.click("#regenerate-token")
    assert asked == ["The current token will stop working at once. Regenerate?"]
    page.once("dialog", lambda dialog: answer(dialog, accept=True))
    page.click("#regenerate-token")
    token = page.locator(".messagelist .client-token")
    expect(token).to_have_count(1)
    assert token.inner_text() not in ("", first) and len(asked) == 2


def test_an_mcp_servers_file_is_imported_from_the_upstream_list(
    page: Page, gateway: LiveGateway, tmp_path
):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "imported-time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "imported-notion": {
                        "type": "http",
                        "url": "https://mcp.notion.com/mcp",
                        "headers": {"Authorization": "Bearer ${NOTION_TOKEN}"},
                    },
                }
            }
        )
    )
    log_in(page, gateway)
    page.goto(admin_url(gateway, "gateway/upstream/"))
    page.click("#import-servers")
    page.set_input_files("#id_config_file", str(config))
    page.click("#import-submit")
    expect(page.locator(".messagelist")).to_contain_text("Created  imported-time (stdio)")
    expect(page.locator("#result_list")).to_contain_text("imported-notion")
    page.locator("#result_list").get_by_role("link", name="imported-notion").click()
    expect(page.locator("#id_headers_text")).to_have_value("Authorization: Bearer ${NOTION_TOKEN}")


def test_visitors_who_are_not_logged_in_get_the_login_page(page: Page, gateway: LiveGateway):
    page.goto(admin_url(gateway, "indexing/sessionrecord/overview/"))
    expect(page.locator("#id_username")).to_be_visible()
    assert "/admin/login/" in page.url


def test_a_live_sessions_report_matches_its_record_and_shows_its_labels(
    page: Page, gateway: LiveGateway, folder: Path, tmp_path: Path
):
    log_in(page, gateway)
    with ScriptedSession(gateway, folder) as session:
        assert all(text.startswith("[Response compressed") for text in session.placeholders)
        record = wait_until(
            lambda: (
                (r := latest_record(gateway)) and r["reads"] == 1 and len(r["labels"]) == 2 and r
            ),
            seconds=30,
            what="the session record with both labels",
        )
        page.goto(admin_url(gateway, "indexing/sessionrecord/"))
        page.click(f'a[href$="/indexing/sessionrecord/{record["pk"]}/report/"]')
        expect(page.locator("svg.chart").first).to_be_visible()
        shown = {
            name: page.locator(f'[data-field="{name}"]').first.inner_text().strip()
            for name in (
                "client_label",
                "protocol_version",
                "call_count",
                "error_count",
                "bytes_from_upstreams",
                "bytes_to_client",
                "catalog_bytes_before",
                "catalog_bytes_after",
                "items_activated",
                "searches",
                "reads",
                "responses_indexed",
            )
        }
        expected = {name: str(record[name]) for name in shown if name in record}
        expected["responses_indexed"] = "2"
        assert shown == expected
        assert record["call_count"] == 4 and record["searches"] == 1
        saved = record["bytes_from_upstreams"] - record["bytes_to_client"]
        assert page.locator('[data-field="bytes_saved"]').inner_text() == str(saved)
        rows = page.locator("tr.indexed-label")
        expect(rows).to_have_count(2)
        for row, label in zip(rows.all(), record["labels"], strict=True):
            expect(row).to_contain_text(label["label"])
            assert row.locator('[data-field="original_bytes"]').inner_text() == str(
                label["original_bytes"]
            )
            assert row.locator('[data-field="lines"]').inner_text() == str(label["lines"])
            assert row.locator('[data-field="chunks"]').inner_text() == str(label["chunks"])
        screenshot(page, "report.png", tmp_path)

        page.click("text=files__read_text_file:1")
        expect(page.locator("#label-content")).to_contain_text("class BaseIterable")

        page.go_back()
        page.click("text=files__read_text_file:2")
        content = page.locator("#label-content")
        expect(content).to_contain_text(HOSTILE)
        assert content.locator("script, img").count() == 0
        assert page.evaluate("window.__pwned") is None

    wait_until(lambda: latest_record(gateway)["ended"], seconds=30, what="the session to end")
    page.reload()
    expect(page.locator("#content-gone")).to_be_visible()


def test_the_overview_has_charts_and_upstream_health(
    page: Page, gateway: LiveGateway, folder: Path, tmp_path: Path
):
    with ScriptedSession(gateway, folder):
        pass  # a session makes this worker start the upstream
    gateway.orm(lambda: call_command("demo_data", sessions=300, days=30, stdout=io.StringIO()))
    log_in(page, gateway)
    page.goto(admin_url(gateway, "indexing/sessionrecord/"))
    page.click("#overview-link")
    expect(page.locator("svg.chart")).to_have_count(3)
    files = page.locator("#upstream-health tbody tr", has_text="files")
    expect(files).to_have_count(1)
    expect(files).to_contain_text("connected")
    screenshot(page, "overview.png", tmp_path)


def test_the_admin_styles_are_served_by_the_gateway_itself(gateway: LiveGateway) -> None:
    with urllib.request.urlopen(
        admin_url(gateway).replace("/admin/", "/static/admin/css/base.css")
    ) as response:
        assert response.status == 200
        assert b"body" in response.read()
