"""Team sign-in's settings, group mapping, ID token checks and pages, without a provider.

The sign-in itself, against a real OpenID provider in a browser, is in
tests/e2e/test_team_sign_in.py.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from django.core.exceptions import SuspiciousOperation
from django.test import override_settings
from django.urls import reverse
from mozilla_django_oidc import auth as oidc_auth

from localrouter.config import ConfigError
from localrouter.team_sign_in import discovery, recheck, views
from localrouter.team_sign_in.backend import TeamSignInBackend, refusal
from localrouter.team_sign_in.config import (
    CALLBACK_PATH,
    TeamSignIn,
    callback_override,
    password_login,
    team_sign_in,
)
from localrouter.team_sign_in.roles import GroupRoles, Role
from tests.fixtures.http_server import free_port

ISSUER = "https://login.example.com/realms/team"
SECRET = "a-client-secret-of-the-test-0123456789"
ENOUGH = {
    "LOCALROUTER_OIDC_ISSUER": ISSUER + "/",
    "LOCALROUTER_OIDC_CLIENT_ID": "localrouter",
    "LOCALROUTER_OIDC_CLIENT_SECRET": SECRET,
    "LOCALROUTER_OIDC_STAFF_GROUPS": "lr-staff, lr-readers",
}
ROLES = GroupRoles(
    claim="groups", staff=frozenset({"lr-staff"}), superuser=frozenset({"lr-admins"})
)


def sign_in_settings(issuer: str = ISSUER, name: str = "Example Corp") -> TeamSignIn:
    return TeamSignIn(
        issuer=issuer,
        client_id="localrouter",
        client_secret=SECRET,
        provider_name=name,
        scopes="openid email",
        signing_algorithm="HS256",
        token_auth_basic=True,
        roles=ROLES,
    )


def test_team_sign_in_is_off_until_an_issuer_is_set(monkeypatch):
    monkeypatch.delenv("LOCALROUTER_OIDC_ISSUER", raising=False)
    assert team_sign_in() is None


def test_the_settings_are_read_with_defaults(monkeypatch):
    for name, value in ENOUGH.items():
        monkeypatch.setenv(name, value)
    settings = team_sign_in()
    assert settings.issuer == ISSUER  # without the trailing slash
    assert settings.roles == GroupRoles(
        "groups", frozenset({"lr-staff", "lr-readers"}), frozenset()
    )
    assert (settings.scopes, settings.provider_name) == ("openid email profile", "SSO")
    assert (settings.signing_algorithm, settings.token_auth_basic) == ("RS256", True)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"LOCALROUTER_OIDC_ISSUER": "login.example.com"}, "LOCALROUTER_OIDC_ISSUER: expected"),
        ({"LOCALROUTER_OIDC_CLIENT_ID": ""}, "LOCALROUTER_OIDC_CLIENT_ID: required"),
        ({"LOCALROUTER_OIDC_CLIENT_SECRET": " "}, "LOCALROUTER_OIDC_CLIENT_SECRET: required"),
        ({"LOCALROUTER_OIDC_STAFF_GROUPS": ""}, "LOCALROUTER_OIDC_STAFF_GROUPS or"),
        ({"LOCALROUTER_OIDC_SCOPES": "openid profile"}, "must include openid and email"),
        ({"LOCALROUTER_OIDC_SIGN_ALGORITHM": "none"}, "LOCALROUTER_OIDC_SIGN_ALGORITHM: expected"),
        ({"LOCALROUTER_OIDC_TOKEN_AUTH": "jwt"}, "LOCALROUTER_OIDC_TOKEN_AUTH: expected one of"),
    ],
)
def test_an_incomplete_team_sign_in_is_a_clear_configuration_error(monkeypatch, changes, message):
    for name, value in {**ENOUGH, **changes}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        team_sign_in()


def test_password_login_can_be_turned_off_only_with_team_sign_in(monkeypatch):
    monkeypatch.setenv("LOCALROUTER_PASSWORD_LOGIN", "false")
    assert password_login(sign_in_settings()) is False
    with pytest.raises(ConfigError, match="needs team sign-in"):
        password_login(None)


@pytest.mark.parametrize(
    ("groups", "role"),
    [
        (["lr-staff"], Role(is_staff=True, is_superuser=False)),
        (["sales", "lr-admins"], Role(is_staff=True, is_superuser=True)),
        (["lr-staff", "lr-admins"], Role(is_staff=True, is_superuser=True)),
        ("lr-staff", Role(is_staff=True, is_superuser=False)),  # one group as a string
        (["LR-STAFF"], None),  # names are exact
        (["sales"], None),
        ([], None),
        (None, None),
        ({"lr-staff": True}, None),  # not a list of names
    ],
)
def test_groups_map_to_staff_and_superuser(groups, role):
    assert ROLES.role_of({"groups": groups}) == role


def _id_token(**claims) -> str:
    payload = {
        "iss": ISSUER,
        "aud": "localrouter",
        "sub": "ann",
        "nonce": "n-1",
        "exp": int(time.time()) + 60,
        **claims,
    }
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, SECRET, "HS256")


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ({"iss": "https://evil.example"}, "another issuer"),
        ({"aud": "another-app"}, "another client"),
        ({"aud": ["another-app", "more"]}, "another client"),
        ({"exp": None}, "no expiry"),
        ({"nonce": "replayed"}, "Nonce verification failed"),
    ],
)
def test_an_id_token_for_someone_else_is_refused(claims, message):
    with override_settings(
        TEAM_SIGN_IN=sign_in_settings(), OIDC_RP_SIGN_ALGO="HS256", OIDC_RP_CLIENT_SECRET=SECRET
    ):
        backend = TeamSignInBackend()
        assert backend.verify_token(_id_token(), nonce="n-1")["sub"] == "ann"
        with pytest.raises(SuspiciousOperation, match=message):
            backend.verify_token(_id_token(**claims), nonce="n-1")


@pytest.mark.django_db
def test_a_password_login_never_reaches_the_provider(client, admin_user):
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        backend = TeamSignInBackend()
        assert backend.authenticate(None, username="admin", password="password") is None


@pytest.mark.django_db
def test_without_team_sign_in_its_pages_are_404_and_the_login_page_offers_none(client):
    discovery.forget()
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=a&state=b").status_code == 404
    page = client.get("/admin/login/")
    assert b'id="login-form"' in page.content
    assert b'id="team-sign-in"' not in page.content


@pytest.mark.django_db
def test_an_unreachable_provider_gets_a_clear_page(client):
    discovery.forget()
    unreachable = sign_in_settings(f"http://127.0.0.1:{free_port()}", name="ACME {x} & <b>")
    with override_settings(TEAM_SIGN_IN=unreachable):
        answer = client.get("/oidc/authenticate/")
    assert answer.status_code == 502
    assert b"ACME {x} &amp; &lt;b&gt; could not be reached" in answer.content
    assert b"Traceback" not in answer.content


@pytest.mark.django_db
def test_with_password_login_off_a_posted_password_is_refused_unchecked(client, admin_user):
    with override_settings(TEAM_SIGN_IN=sign_in_settings(), PASSWORD_LOGIN=False):
        page = client.get("/admin/login/")
        assert b'id="team-sign-in"' in page.content
        assert b'id="login-form"' not in page.content
        answer = client.post("/admin/login/", {"username": "admin", "password": "password"})
    assert answer.status_code == 403
    assert b"Password login is turned off here" in answer.content
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_an_unverified_email_is_refused_with_a_reason(rf):
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        backend = TeamSignInBackend()
        backend.request = rf.get("/oidc/callback/")
        claims = {"email": "ann@example.com", "email_verified": False, "groups": ["lr-staff"]}
        assert backend.verify_claims(claims) is False
        shown = refusal(backend.request).format(provider="Example Corp")
        assert shown == "Example Corp gave no verified email address for your account."
        assert backend.verify_claims({**claims, "email_verified": True}) is True


@pytest.mark.django_db
def test_after_a_password_login_the_signed_out_page_offers_no_provider_sign_out(client, admin_user):
    client.force_login(admin_user, backend="django.contrib.auth.backends.ModelBackend")
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        page = client.post("/admin/logout/")
    assert page.status_code == 200
    assert b"Logged out" in page.content
    assert b"provider-sign-out" not in page.content
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_password_session_is_never_sent_to_the_provider_for_a_check(client, admin_user):
    client.force_login(admin_user, backend="django.contrib.auth.backends.ModelBackend")
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        assert client.get("/admin/").status_code == 200


BOTH_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "localrouter.team_sign_in.backend.TeamSignInBackend",
]


@pytest.mark.django_db
@override_settings(AUTHENTICATION_BACKENDS=BOTH_BACKENDS)
def test_a_members_check_waits_while_the_provider_is_down_then_goes_there(
    client, admin_user, caplog, monkeypatch
):
    discovery.forget()
    client.force_login(admin_user, backend=BOTH_BACKENDS[1])
    down = sign_in_settings(issuer=f"http://127.0.0.1:{free_port()}")
    with override_settings(TEAM_SIGN_IN=down):
        assert client.get("/admin/").status_code == 200  # not signed out while it is down
    assert "cannot check a session again" in caplog.text

    endpoints = discovery.ProviderEndpoints(ISSUER + "/auth", "", "", "", "")
    monkeypatch.setattr(recheck, "provider_endpoints", lambda issuer: endpoints)
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        answer = client.get("/admin/clients/")
    assert answer.status_code == 302
    assert answer["Location"].startswith(ISSUER + "/auth?")
    assert "prompt=none" in answer["Location"]
    assert client.session["oidc_login_next"] == "/admin/clients/"


@pytest.mark.django_db
def test_a_session_of_a_backend_that_is_gone_is_simply_signed_out(client, admin_user):
    client.force_login(admin_user, backend="django.contrib.auth.backends.ModelBackend")
    session = client.session
    session["_auth_user_backend"] = "gone.module.Backend"
    session.save()
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        answer = client.get("/admin/")
    assert answer.status_code == 302
    assert answer["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_the_callback_address_follows_the_public_url(client, monkeypatch):
    assert reverse("oidc_authentication_callback") == CALLBACK_PATH
    endpoints = discovery.ProviderEndpoints(ISSUER + "/auth", ISSUER + "/token", "", "", "")
    monkeypatch.setattr(views, "provider_endpoints", lambda issuer: endpoints)
    public = callback_override("https://mcp.example.com")
    assert public == {"redirect_uri": "https://mcp.example.com/oidc/callback/"}
    with override_settings(TEAM_SIGN_IN=sign_in_settings(), OIDC_AUTH_REQUEST_EXTRA_PARAMS=public):
        answer = client.get("/oidc/authenticate/")
        sent = parse_qs(urlsplit(answer["Location"]).query)
        assert sent["redirect_uri"] == ["https://mcp.example.com/oidc/callback/"]
        assert sent["code_challenge_method"] == ["S256"] and sent["state"] and sent["nonce"]

        # The code is redeemed with the same address (the token request as the library sends it).
        posted = {}

        def token_endpoint(url, data, **kwargs):
            posted.update(data)
            raise requests.ConnectionError("stop here")

        monkeypatch.setattr(oidc_auth.requests, "post", token_endpoint)
        with pytest.raises(requests.ConnectionError):
            TeamSignInBackend().get_token({"code": "c", "redirect_uri": "http://testserver/x"})
    assert posted["redirect_uri"] == "https://mcp.example.com/oidc/callback/"
    assert callback_override("") == {}


@pytest.mark.django_db
def test_a_user_deactivated_here_is_refused_whatever_the_groups(rf, django_user_model):
    user = django_user_model.objects.create_user("ann@example.com", email="ann@example.com")
    user.is_active = False
    user.save()
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        backend = TeamSignInBackend()
        backend.request = rf.get("/oidc/callback/")
        claims = {"email": "Ann@Example.com", "groups": ["lr-admins"]}
        [found] = backend.filter_users_by_claims(claims)
        updated = backend.update_user(found, claims)
    assert refusal(backend.request) == "Your LocalRouter user is deactivated. Ask an administrator."
    assert (updated.is_active, updated.is_superuser) == (False, True)


@pytest.mark.django_db
def test_a_sign_in_never_returns_to_another_site(client, monkeypatch):
    endpoints = discovery.ProviderEndpoints(ISSUER + "/auth", "", "", "", "")
    monkeypatch.setattr(views, "provider_endpoints", lambda issuer: endpoints)
    with override_settings(TEAM_SIGN_IN=sign_in_settings()):
        client.get("/oidc/authenticate/", {"next": "https://evil.example/admin/"})
        assert client.session["oidc_login_next"] is None  # back to the admin's home instead
        client.get("/oidc/authenticate/", {"next": "/oauth/authorize?client_id=x"})
        assert client.session["oidc_login_next"] == "/oauth/authorize?client_id=x"
