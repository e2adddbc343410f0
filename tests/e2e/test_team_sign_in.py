"""Team sign-in through a real OpenID provider (npm oidc-provider), in Debian's chromium.

Two gateways share one provider: one takes passwords and offers "Sign in with Example Corp"
beside them, the other has password login turned off. The provider's groups decide who
signs in as staff or superuser; its accounts file is rewritten to move a member.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.e2e import test_admin_browser as browser_tests
from tests.e2e.live import LiveGateway, create_superuser, start_gateway, stop_gateway
from tests.e2e.test_admin_browser import PASSWORD, admin_url, screenshot, wait_until
from tests.fixtures.http_server import free_port
from tests.fixtures.oidc_provider import CLIENT_SECRET, OpenIdProvider, openid_provider

browser = browser_tests.browser  # the browser and its CSP-checked page are shared
page = browser_tests.page
pytestmark = browser_tests.pytestmark

PROVIDER = "Example Corp"


def _account(login: str, *groups: str) -> dict:
    return {"password": f"{login}-pw", "email": f"{login}@example.com", "groups": list(groups)}


ACCOUNTS = {
    "ann": _account("ann", "lr-staff"),
    "bo": _account("bo", "lr-admins"),
    "cy": _account("cy", "sales"),
    "dan": _account("dan", "lr-staff"),
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory) -> Iterator[OpenIdProvider]:
    with openid_provider(tmp_path_factory.mktemp("oidc"), free_port(), ACCOUNTS) as running:
        yield running


def _gateway(tmp: Path, provider: OpenIdProvider, **settings: str) -> LiveGateway:
    env = provider.gateway_env(
        staff="lr-staff,lr-readers",
        superuser="lr-admins",
        LOCALROUTER_OIDC_PROVIDER_NAME=PROVIDER,
        **settings,
    )
    return start_gateway(tmp, [], [], **env)


@pytest.fixture(scope="module")
def gateways(tmp_path_factory, provider) -> Iterator[dict[str, LiveGateway]]:
    """A gateway with both logins, one with password login off, and the provider they use."""
    started = {}
    try:
        started["both"] = _gateway(tmp_path_factory.mktemp("both"), provider)
        started["sso-only"] = _gateway(
            tmp_path_factory.mktemp("sso-only"),
            provider,
            LOCALROUTER_PASSWORD_LOGIN="false",
            LOCALROUTER_OIDC_RECHECK_SECONDS="1",  # members are checked again at once
        )
        for live in started.values():
            create_superuser(live, PASSWORD)
        provider.start(*(live.url.removesuffix("/mcp") for live in started.values()))
        yield started
    finally:
        for live in started.values():
            stop_gateway(live)


@pytest.fixture(scope="module")
def gateway(gateways) -> LiveGateway:
    return gateways["both"]


def sign_in_at_provider(page: Page, login: str) -> None:
    """Fill in the provider's own sign-in form."""
    expect(page.locator("h1")).to_have_text("Example Corp")
    page.fill("input[name=login]", login)
    page.fill("input[name=password]", ACCOUNTS[login]["password"])
    page.click("button[type=submit]")


def users(live: LiveGateway, email: str) -> list[dict]:
    rows = User.objects.filter(email=email).values("username", "is_staff", "is_superuser")
    return live.orm(
        lambda: [{**row, "password": _password_usable(row["username"])} for row in rows]
    )


def _password_usable(username: str) -> bool:
    return User.objects.get(username=username).has_usable_password()


def sign_out(page: Page) -> None:
    page.click("#logout-form button")
    expect(page.locator("#content h1")).to_have_text("Logged out")


def test_a_staff_member_signs_in_and_out(page: Page, gateway, tmp_path):
    page.goto(admin_url(gateway))
    expect(page.locator("#login-form")).to_be_visible()  # passwords still welcome here
    expect(page.locator("#team-sign-in")).to_have_text(f"Sign in with {PROVIDER}")
    screenshot(page, "team-sign-in-login.png", tmp_path)
    page.click("#team-sign-in")
    sign_in_at_provider(page, "ann")
    expect(page).to_have_url(admin_url(gateway))
    expect(page.locator("#user-tools")).to_contain_text("ann@example.com")
    # Staff without permissions yet (a superuser grants them, e.g. through a group): only
    # their own upstream connections, which every member manages (docs/oauth.md).
    expect(page.locator("#content-main")).to_contain_text("Connections")
    expect(page.locator("#content-main")).not_to_contain_text("Clients")
    assert users(gateway, "ann@example.com") == [
        {"username": "ann@example.com", "is_staff": True, "is_superuser": False, "password": False}
    ]
    sign_out(page)
    page.goto(admin_url(gateway))
    expect(page.locator("#login-form")).to_be_visible()

    # Signed out here, but the provider would sign the next person straight back in as ann:
    # the signed-out page offers its sign-out too.
    page.click("#team-sign-in")
    expect(page.locator("#user-tools")).to_contain_text("ann@example.com")
    sign_out(page)
    page.click("#provider-sign-out")
    page.click("button[name=logout]")
    expect(page.locator("main")).to_contain_text("You are signed out of Example Corp")
    page.goto(admin_url(gateway))
    page.click("#team-sign-in")
    expect(page.locator("input[name=password]")).to_be_visible()  # asked again

    log = gateway.log()
    assert "/oidc/callback/?code=***" in log  # the access log masks the one-time code
    assert CLIENT_SECRET not in log


def test_a_superuser_group_member_signs_in_as_superuser_where_they_were_going(page: Page, gateway):
    page.goto(admin_url(gateway, "clients/client/"))
    page.click("#team-sign-in")
    sign_in_at_provider(page, "bo")
    expect(page).to_have_url(admin_url(gateway, "clients/client/"))
    expect(page.locator("#content h1")).to_have_text("Select client to change")
    assert users(gateway, "bo@example.com") == [
        {"username": "bo@example.com", "is_staff": True, "is_superuser": True, "password": False}
    ]


def test_a_member_in_no_allowed_group_is_refused_and_nothing_is_created(
    page: Page, gateway, tmp_path
):
    page.goto(admin_url(gateway))
    page.click("#team-sign-in")
    sign_in_at_provider(page, "cy")
    expect(page.locator("#sign-in-problem")).to_contain_text(
        f"Your account at {PROVIDER} is in none of the groups allowed to sign in"
    )
    screenshot(page, "team-sign-in-refused.png", tmp_path)
    assert users(gateway, "cy@example.com") == []
    page.goto(admin_url(gateway))
    expect(page.locator("#login-form")).to_be_visible()  # not signed in


def test_a_changed_group_takes_effect_at_the_next_sign_in(page: Page, gateway, provider):
    page.goto(admin_url(gateway))
    page.click("#team-sign-in")
    sign_in_at_provider(page, "dan")
    expect(page.locator("#site-name")).to_be_visible()
    assert users(gateway, "dan@example.com")[0]["is_superuser"] is False
    sign_out(page)
    try:
        provider.set_accounts({**ACCOUNTS, "dan": {**ACCOUNTS["dan"], "groups": ["lr-admins"]}})
        page.goto(admin_url(gateway))
        page.click("#team-sign-in")  # the provider remembers dan: no form this time
        expect(page.locator("a[href='/admin/auth/user/']").first).to_be_visible()
        assert users(gateway, "dan@example.com")[0] == {
            "username": "dan@example.com", "is_staff": True, "is_superuser": True, "password": False
        }  # fmt: skip
        sign_out(page)

        provider.set_accounts({**ACCOUNTS, "dan": {**ACCOUNTS["dan"], "groups": []}})
        page.goto(admin_url(gateway))
        page.click("#team-sign-in")
        expect(page.locator("#sign-in-problem")).to_contain_text("none of the groups")
        assert users(gateway, "dan@example.com")[0]["is_staff"] is False  # rights end with it
    finally:
        provider.set_accounts(ACCOUNTS)


def test_with_password_login_off_only_the_provider_signs_people_in(page: Page, gateways, tmp_path):
    live = gateways["sso-only"]
    page.goto(admin_url(live))
    expect(page.locator("#team-sign-in")).to_be_visible()
    expect(page.locator("#login-form")).to_have_count(0)
    screenshot(page, "team-sign-in-only.png", tmp_path)

    # A password posted anyway (with a valid CSRF token) is refused unchecked.
    login_url = admin_url(live, "login/")
    token = "t" * 32  # a CSRF cookie and form value that match, as Django checks them
    with httpx2.Client(cookies={"csrftoken": token}) as http:
        answer = http.post(
            login_url,
            data={"csrfmiddlewaretoken": token, "username": "admin", "password": PASSWORD},
            headers={"Referer": login_url},
        )
        assert answer.status_code == 403
        assert "Password login is turned off here" in answer.text
        assert "sessionid" not in http.cookies

    page.click("#team-sign-in")
    sign_in_at_provider(page, "ann")
    expect(page.locator("#user-tools")).to_contain_text("ann@example.com")


def test_callbacks_that_are_stale_forged_or_refused_get_a_clear_page(gateway):
    callback = gateway.url.removesuffix("/mcp") + "/oidc/callback/"
    with httpx2.Client() as http:
        stale = http.get(callback, params={"code": "made-up", "state": "made-up"})
        refused = http.get(callback, params={"error": "access_denied", "state": "x"})
        # A sign-in started in this session, answered with another state (forged, or replayed).
        assert http.get(callback.replace("callback", "authenticate")).status_code == 302
        forged = http.get(callback, params={"code": "made-up", "state": "not-the-one"})
    for answer in (stale, refused):
        assert answer.status_code == 403
        assert f"{PROVIDER} did not sign you in." in answer.text
        assert "Traceback" not in answer.text
    assert forged.status_code == 400
    assert "This sign-in could not be completed" in forged.text


def test_a_signed_in_member_is_checked_again_and_follows_the_provider(
    page: Page, gateways, provider
):
    live = gateways["sso-only"]  # checks members again after a second
    page.goto(admin_url(live))
    page.click("#team-sign-in")
    sign_in_at_provider(page, "dan")
    expect(page.locator("#user-tools")).to_contain_text("dan@example.com")
    superuser_link = page.locator("a[href='/admin/auth/user/']")
    expect(superuser_link).to_have_count(0)
    try:
        # Made superuser at the provider: a later page shows it, with no sign-in in between.
        provider.set_accounts({**ACCOUNTS, "dan": {**ACCOUNTS["dan"], "groups": ["lr-admins"]}})

        def superuser_now() -> bool:
            page.goto(admin_url(live))
            return superuser_link.count() > 0

        wait_until(superuser_now, seconds=30, what="the superuser group to take effect")
        # Out of every group: the next check signs dan out, with the reason.
        provider.set_accounts({**ACCOUNTS, "dan": {**ACCOUNTS["dan"], "groups": ["sales"]}})

        def refused_now() -> bool:
            page.goto(admin_url(live))
            return page.locator("#sign-in-problem").count() > 0

        wait_until(refused_now, seconds=30, what="the member to be signed out")
        expect(page.locator("#sign-in-problem")).to_contain_text("none of the groups")
        page.goto(admin_url(live))
        expect(page.locator("#team-sign-in")).to_be_visible()  # signed out here
        assert users(live, "dan@example.com")[0]["is_staff"] is False
    finally:
        provider.set_accounts(ACCOUNTS)
