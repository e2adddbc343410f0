"""Connect a hosted (OAuth-protected) MCP server from the admin in Debian's chromium: a member
clicks Connect, signs in and allows at the fixture authorization server, comes back connected;
the grant works at the protected server as that member; Disconnect revokes it.

With LOCALROUTER_UPDATE_SCREENSHOTS=1 the screenshots go to docs/screenshots/ (docs/oauth.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from cryptography.fernet import Fernet
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Page, expect

from gateway.models import Upstream
from gateway.upstream_auth.models import Grant, UpstreamAuth
from tests.e2e import test_admin_browser as browser_tests
from tests.e2e.live import LiveGateway, create_superuser, start_gateway, stop_gateway
from tests.e2e.test_admin_browser import PASSWORD, admin_url, log_in, screenshot
from tests.fixtures.http_server import RunningServer, run_oauth_server
from tests.fixtures.oauth_connect import whoami

browser = browser_tests.browser
page = browser_tests.page
pytestmark = browser_tests.pytestmark

KEY = Fernet.generate_key().decode()
MEMBER_PASSWORD = "pw-member-alice-1"


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[RunningServer]:
    with run_oauth_server("--require-resource") as server:
        yield server


def add_member_and_oauth_upstream(url: str) -> None:
    User.objects.create_user("alice", password=MEMBER_PASSWORD, is_staff=True)
    upstream = Upstream.objects.get(name="hosted")
    UpstreamAuth.objects.create(upstream=upstream, mode="member")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory, oauth_server) -> Iterator[LiveGateway]:
    live = start_gateway(
        tmp_path_factory.mktemp("oauth-browser"),
        [{"name": "hosted", "transport": "http", "url": oauth_server.url}],
        [],
        LOCALROUTER_ENCRYPTION_KEYS=KEY,
    )
    try:
        create_superuser(live, PASSWORD)
        live.orm(lambda: add_member_and_oauth_upstream(oauth_server.url))
        yield live
    finally:
        stop_gateway(live)


def log_in_as_alice(page: Page, live: LiveGateway) -> None:
    page.goto(admin_url(live))
    page.fill("#id_username", "alice")
    page.fill("#id_password", MEMBER_PASSWORD)
    page.click("input[type=submit]")
    expect(page.locator("#logout-form")).to_have_count(1)


def alices_token(live: LiveGateway) -> str | None:
    def read() -> str | None:
        grant = Grant.objects.filter(member__username="alice").first()
        with override_settings(ENCRYPTION_KEYS=[KEY]):
            return grant.opened("access_token") if grant else None

    return live.orm(read)


def test_a_member_connects_in_the_browser_and_disconnects(page, gateway, oauth_server, tmp_path):
    log_in_as_alice(page, gateway)
    page.goto(admin_url(gateway, "gateway/grant/"))
    row = page.locator('tr[data-upstream="hosted"]')
    expect(row.locator(".connection-state")).to_have_text("not connected")
    screenshot(page, "oauth-my-connections.png", tmp_path)

    row.get_by_role("button", name="Connect").click()
    expect(page.get_by_role("heading", name="Sign in to the fixture server")).to_be_visible()
    page.fill("input[name=username]", "alice-at-the-server")
    screenshot(page, "oauth-consent.png", tmp_path)
    page.get_by_role("button", name="Allow").click()

    expect(page.locator(".messagelist")).to_have_text("Connected hosted for you.")
    expect(row.locator(".connection-state")).to_have_text("connected")
    screenshot(page, "oauth-connected.png", tmp_path)
    token = alices_token(gateway)
    assert whoami(oauth_server.url, token) == "alice-at-the-server"
    assert token not in page.content()

    row.get_by_role("button", name="Disconnect").click()

    expect(page.locator(".messagelist")).to_have_text(
        "Disconnected hosted (its tokens were revoked)."
    )
    expect(row.locator(".connection-state")).to_have_text("not connected")
    assert alices_token(gateway) is None
    refused = httpx2.post(oauth_server.url, json={}, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401


def test_a_superuser_reaches_connect_from_the_upstream_page(page, gateway):
    log_in(page, gateway)
    upstream_id = gateway.orm(lambda: Upstream.objects.get(name="hosted").pk)
    page.goto(admin_url(gateway, f"gateway/upstream/{upstream_id}/change/"))
    expect(page.locator("#upstream-connections")).to_contain_text("Connected by")

    page.locator("#upstream-connections").get_by_role("link", name="Connect…").click()

    expect(page.get_by_role("button", name="Connect hosted")).to_be_visible()
