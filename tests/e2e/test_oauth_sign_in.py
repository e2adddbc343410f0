"""The official SDK client signs in with OAuth, end to end, in both protocol eras.

Discovery from /mcp's 401, registration (dynamic, or a Client ID Metadata Document served
over https), a member logging into the admin in Debian's Chromium and approving, tokens, tool
calls, a refresh after the short token lifetime, and a disconnection ending access on both
of two workers.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from oauth2_provider.models import AccessToken, Application, RefreshToken
from playwright.async_api import Browser, async_playwright

from clients.models import Client as ClientRecord
from tests.e2e.live import (
    INITIALIZE,
    LiveGateway,
    start_daphne,
    start_gateway,
    stdio_upstream,
    stop_gateway,
)
from tests.e2e.oauth_sign_in import BrowserApproval, sdk_auth, watch_csp
from tests.e2e.test_admin_browser import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS
from tests.fixtures.http_server import free_port, stop_process
from tests.fixtures.tls_documents import TlsDocuments, tls_documents

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
]
PASSWORD = "pw-oauth-member-1"
ACCEPT = "application/json, text/event-stream"


def add_people() -> None:
    User.objects.create_user("mia", "mia@example.com", PASSWORD, is_staff=True)
    User.objects.create_superuser("admin", "admin@example.com", PASSWORD)


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Iterator[TlsDocuments]:
    with tls_documents(tmp_path_factory.mktemp("tls")) as served:
        yield served


@pytest.fixture(scope="module")
def gateway(tmp_path_factory, documents) -> Iterator[LiveGateway]:
    """One gateway, two workers, short-lived access tokens, loopback metadata documents."""
    live = start_gateway(
        tmp_path_factory.mktemp("oauth-gateway"),
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "team"}],
        # Short-lived, yet long enough for a sign-in's first requests on a loaded machine (at
        # 3 s, a request sent just before expiry arrived after it: a 401, and a new sign-in).
        LOCALROUTER_OAUTH_ACCESS_TOKEN_SECONDS="10",
        LOCALROUTER_OAUTH_METADATA_PRIVATE_ADDRESSES="true",
        SSL_CERT_FILE=str(documents.ca_file),
    )
    live.orm(add_people)
    port = free_port()
    second = start_daphne(live, port, live.data_dir / "daphne-2.log")
    live.extra["second"] = f"http://127.0.0.1:{port}/mcp"
    try:
        yield live
    finally:
        stop_process(second)
        stop_gateway(live)


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            await browser.close()


def screenshot_path(name: str, tmp_path: Path) -> Path:
    folder = SCREENSHOTS if os.environ.get("LOCALROUTER_UPDATE_SCREENSHOTS") else tmp_path
    return folder / name


def approval(browser: Browser, tmp_path: Path, shot: str | None = None) -> BrowserApproval:
    return BrowserApproval(
        browser,
        "mia",
        PASSWORD,
        callback=f"http://127.0.0.1:{free_port()}/callback",
        screenshot_to=screenshot_path(shot, tmp_path) if shot else None,
    )


@asynccontextmanager
async def signed_in(gateway: LiveGateway, provider, mode: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30, read=120)) as http:
        transport = streamable_http_client(gateway.url, http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client


async def echo(client: Client, text: str) -> str:
    return (await client.call_tool("echo__echo", {"text": text})).content[0].text


def member_clients(name: str) -> list[tuple[str, str]]:
    rows = ClientRecord.objects.filter(oauth_application__name=name)
    return list(rows.values_list("name", "owner__username"))


def rotated_refresh_tokens(name: str) -> int:
    return RefreshToken.objects.filter(application__name=name, revoked__isnull=False).count()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_sdk_client_signs_in_through_the_browser_calls_tools_and_refreshes(
    gateway, mode, tmp_path
):
    name = f"Assistant ({mode})"
    async with chromium() as browser:
        member = approval(browser, tmp_path, "auth-consent.png" if mode == "legacy" else None)
        provider, storage = sdk_auth(gateway, member, name=name)
        async with signed_in(gateway, provider, mode) as client:
            assert await echo(client, "signed in") == "signed in"
            first = storage.tokens.access_token
            with anyio.fail_after(30):  # the access token lives 10 s here
                while provider.context.is_token_valid():
                    await anyio.sleep(0.2)
            assert await echo(client, "refreshed") == "refreshed"
            assert storage.tokens.access_token != first
    assert member.pages_seen == ["/admin/login/", "/oauth/authorize/"]
    assert member.csp_violations == []
    assert gateway.orm(lambda: member_clients(name)) == [(f"{name} (mia)", "mia")]
    assert gateway.orm(lambda: rotated_refresh_tokens(name)) >= 1
    logs = gateway.log() + (gateway.data_dir / "daphne-2.log").read_text()
    assert first not in logs and storage.tokens.access_token not in logs
    assert storage.tokens.refresh_token not in logs


async def test_a_client_id_metadata_document_registers_the_client(gateway, documents, tmp_path):
    async with chromium() as browser:
        member = approval(browser, tmp_path)
        url = f"{documents.base}/clients/assistant.json"
        documents.documents["/clients/assistant.json"] = json.dumps(
            {
                "client_id": url,
                "client_name": "Metadata assistant",
                "redirect_uris": [member.callback],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }
        ).encode()
        provider, _storage = sdk_auth(gateway, member, name="unused", client_metadata_url=url)
        async with signed_in(gateway, provider, "2026-07-28") as client:
            assert await echo(client, "by document") == "by document"
    assert "/clients/assistant.json" in documents.requests
    source = gateway.orm(lambda: Application.objects.get(client_id=url).registration_source)
    assert source == Application.RegistrationSource.CIMD
    assert gateway.orm(lambda: member_clients("Metadata assistant")) == [
        ("Metadata assistant (mia)", "mia")
    ]


def outlive_the_test(name: str) -> None:
    """The application's access tokens stay valid for the rest of the test (they live 10 s)."""
    later = timezone.now() + timedelta(hours=1)
    AccessToken.objects.filter(application__name=name).update(expires=later)


async def answers(url: str, token: str, host: str) -> int:
    """A worker's status for an initialize with `token`, as behind a balancer (one Host)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": ACCEPT, "Host": host}
    async with httpx2.AsyncClient(timeout=30) as http:
        return (await http.post(url, json=INITIALIZE, headers=headers)).status_code


async def test_disconnecting_in_the_admin_ends_access_on_every_worker(gateway, tmp_path):
    workers = [gateway.url, gateway.extra["second"]]
    host = urlsplit(gateway.url).netloc
    async with chromium() as browser:
        provider, storage = sdk_auth(gateway, approval(browser, tmp_path), name="Laptop assistant")
        async with signed_in(gateway, provider, "legacy") as client:
            assert await echo(client, "before") == "before"
        token = storage.tokens.access_token
        gateway.orm(lambda: outlive_the_test("Laptop assistant"))
        assert [await answers(url, token, host) for url in workers] == [200, 200]

        context = await browser.new_context(viewport={"width": 1100, "height": 600})
        page = await context.new_page()
        violations: list[str] = []
        watch_csp(page, violations)
        await page.goto(gateway.url.removesuffix("/mcp") + "/admin/clients/client/connected/")
        await page.fill("#id_username", "mia")
        await page.fill("#id_password", PASSWORD)
        await page.click("input[type=submit]")
        row = page.locator("tr.connection", has_text="Laptop assistant")
        assert await row.locator("td.status").inner_text() == "connected"
        await page.screenshot(
            path=str(screenshot_path("oauth-connected-applications.png", tmp_path)),
            full_page=True,
        )
        await row.locator("input.disconnect").click()
        await page.wait_for_selector("ul.messagelist")
        assert await row.locator("td.status").inner_text() == "disconnected"
        await context.close()
    assert violations == []

    with anyio.fail_after(10):  # each worker honours a token a second at most after revocation
        while [await answers(url, token, host) for url in workers] != [401, 401]:
            await anyio.sleep(0.2)


async def test_revoking_the_refresh_token_ends_access_on_every_worker(gateway, tmp_path):
    """RFC 7009, as a client signing out does: the refresh token and its access token end."""
    workers = [gateway.url, gateway.extra["second"]]
    host = urlsplit(gateway.url).netloc
    async with chromium() as browser:
        provider, storage = sdk_auth(gateway, approval(browser, tmp_path), name="Signing-out tool")
        async with signed_in(gateway, provider, "2026-07-28") as client:
            assert await echo(client, "before") == "before"
    gateway.orm(lambda: outlive_the_test("Signing-out tool"))
    token = storage.tokens.access_token
    assert [await answers(url, token, host) for url in workers] == [200, 200]
    async with httpx2.AsyncClient(timeout=30) as http:
        revoked = await http.post(
            gateway.url.removesuffix("/mcp") + "/oauth/revoke/",
            data={
                "token": storage.tokens.refresh_token,
                "token_type_hint": "refresh_token",
                "client_id": storage.client_info.client_id,
            },
        )
    assert revoked.status_code == 200
    with anyio.fail_after(10):
        while [await answers(url, token, host) for url in workers] != [401, 401]:
            await anyio.sleep(0.2)
