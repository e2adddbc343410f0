"""Signing in to a live gateway with OAuth, for the end-to-end tests: the SDK client's
token storage, a member approving in Chromium, and the raw authorization steps."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from playwright.async_api import Browser, Page

from tests.e2e.live import LiveGateway

HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


class MemoryStorage:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class BrowserApproval:
    """A member who, when the client opens the authorization URL, logs into the admin in
    Chromium and approves; the redirect to the client's callback is caught in the browser."""

    browser: Browser
    username: str
    password: str
    callback: str
    screenshot_to: Path | None = None
    pages_seen: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)
    _answer: asyncio.Future | None = None

    async def open(self, authorization_url: str) -> None:
        self._answer = asyncio.get_running_loop().create_future()
        context = await self.browser.new_context(viewport={"width": 1100, "height": 760})
        context.set_default_timeout(60_000)
        try:
            page = await context.new_page()
            watch_csp(page, self.csp_violations)
            await page.route(f"{self.callback}**", self._caught)
            await page.goto(authorization_url)
            self.pages_seen.append(urlsplit(page.url).path)
            await page.fill("#id_username", self.username)
            await page.fill("#id_password", self.password)
            await page.click("input[type=submit]")
            await page.wait_for_selector("#consent-heading")
            self.pages_seen.append(urlsplit(page.url).path)
            await self._screenshot(page)
            await page.click("input[name=allow]")
            await asyncio.wait_for(asyncio.shield(self._answer), 60)
        finally:
            await context.close()

    async def _caught(self, route) -> None:
        if not self._answer.done():
            self._answer.set_result(route.request.url)
        await route.fulfill(status=200, body="You can close this window.")

    async def _screenshot(self, page: Page) -> None:
        if self.screenshot_to is not None:
            await page.screenshot(path=str(self.screenshot_to), full_page=True)

    async def result(self) -> AuthorizationCodeResult:
        url = await self._answer
        query = parse_qs(urlsplit(url).query)
        assert "code" in query, f"the authorization was refused: {url}"
        return AuthorizationCodeResult(
            code=query["code"][0], state=query["state"][0], iss=query.get("iss", [None])[0]
        )


def watch_csp(page: Page, violations: list[str]) -> None:
    """Collect what the page's Content-Security-Policy blocks (Chromium reports it)."""

    def console(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", console)


def sdk_auth(
    live: LiveGateway,
    approval: BrowserApproval,
    *,
    name: str,
    client_metadata_url: str | None = None,
) -> tuple[OAuthClientProvider, MemoryStorage]:
    """The official SDK's OAuth provider for the gateway, with in-memory storage."""
    storage = MemoryStorage()
    metadata = OAuthClientMetadata(
        client_name=name,
        redirect_uris=[approval.callback],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(
        server_url=live.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=approval.open,
        callback_handler=approval.result,
        client_metadata_url=client_metadata_url,
    )
    return provider, storage


def base_url(live: LiveGateway) -> str:
    return live.url.removesuffix("/mcp")


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


async def logged_in(http: httpx2.AsyncClient, live: LiveGateway, user: str, password: str) -> None:
    """Log `http` (keeping cookies) into the admin, as a browser would."""
    login = f"{base_url(live)}/admin/login/"
    page = await http.get(login)
    form = dict(HIDDEN_INPUT.findall(page.text))
    answer = await http.post(
        login,
        data={**form, "username": user, "password": password, "next": "/admin/"},
        headers={"Referer": login},
    )
    assert answer.status_code == 302, answer.text[:500]


async def authorize(http: httpx2.AsyncClient, live: LiveGateway, **params: str) -> httpx2.Response:
    """Open the consent page with `params` and approve it; the answer (a redirect, or the
    page itself when the request is refused there)."""
    url = f"{base_url(live)}/oauth/authorize/?{urlencode({'response_type': 'code', **params})}"
    page = await http.get(url)
    if page.status_code != 200 or 'id="authorizationForm"' not in page.text:
        return page
    form = {name: html.unescape(value) for name, value in HIDDEN_INPUT.findall(page.text)}
    return await http.post(url, data={**form, "allow": "Allow"}, headers={"Referer": url})


def redirect_query(answer: httpx2.Response) -> dict[str, str]:
    assert answer.status_code == 302, answer.text[:500]
    return {
        key: values[0]
        for key, values in parse_qs(urlsplit(answer.headers["location"]).query).items()
    }
