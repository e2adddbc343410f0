"""The Connect flow against a real authorization server (the fixture process): discovery,
registration, PKCE, `resource`, `state` and `iss` checks, and what is stored."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User

from gateway.upstream_auth.models import AuthServerClient, Grant, PendingAuthorization
from gateway.upstream_auth.tokens import access_token
from tests.fixtures.http_server import run_http_server, run_oauth_server
from tests.fixtures.oauth_connect import (
    authorization_url,
    callback,
    connect,
    oauth_upstream,
    page_messages,
    whoami,
)
from tests.fixtures.oauth_sign_in import sign_in

pytestmark = pytest.mark.django_db(transaction=True)
CALLBACK = "http://testserver/admin/gateway/grant/callback/"


@pytest.fixture(scope="module")
def server():
    with run_oauth_server("--require-resource") as running:
        yield running


@pytest.fixture
def alice(client):
    user = User.objects.create_user("alice", password="pw-alice-123", is_staff=True)
    client.force_login(user)
    return user


def test_a_member_connects_and_the_grant_reaches_the_upstream_as_them(client, alice, server):
    upstream = oauth_upstream(server.url)
    target = authorization_url(client, upstream)
    query = parse_qs(urlsplit(target).query)
    assert query["code_challenge_method"] == ["S256"]
    assert query["resource"] == [server.url]
    assert len(query["state"][0]) >= 40

    page = callback(client, sign_in(target, "alice-at-fixture"))

    assert page_messages(page) == ["Connected hosted for you."]
    grant = Grant.objects.get(upstream=upstream, member=alice)
    token = async_to_sync(access_token)(upstream.pk, alice.pk)
    assert token not in grant.access_token_sealed and grant.refresh_token_sealed
    assert whoami(server.url, token) == "alice-at-fixture"
    # Registered dynamically once for this issuer; the state is gone.
    assert AuthServerClient.objects.get().issuer == f"http://127.0.0.1:{server.port}/"
    assert not PendingAuthorization.objects.exists()
    assert b"alice-at-fixture" not in page.content and token.encode() not in page.content


def test_entered_client_credentials_are_used_instead_of_registering(client, alice):
    entered = ["--client-id", "entered-id", "--client-secret", "fixture-secret"]
    with run_oauth_server(*entered, "--redirect-uri", CALLBACK) as srv:
        upstream = oauth_upstream(srv.url, client_id="entered-id")
        target = authorization_url(client, upstream)
        assert parse_qs(urlsplit(target).query)["client_id"] == ["entered-id"]
        page = callback(client, sign_in(target, "alice"))
    assert page_messages(page) == ["Connected hosted for you."]
    assert not AuthServerClient.objects.exists()


def test_a_tampered_state_is_refused_and_nothing_is_stored(client, alice, server):
    upstream = oauth_upstream(server.url)
    back = sign_in(authorization_url(client, upstream), "alice")
    tampered = back.replace("state=", "state=x")

    page = callback(client, tampered)

    assert page_messages(page) == [
        "Not connected: unknown or already used authorization (state); start Connect again"
    ]
    assert not Grant.objects.exists()


def test_a_replayed_state_is_refused(client, alice, server):
    upstream = oauth_upstream(server.url)
    back = sign_in(authorization_url(client, upstream), "alice")
    callback(client, back)
    first = Grant.objects.get()

    page = callback(client, back)

    assert "unknown or already used authorization" in page_messages(page)[0]
    assert Grant.objects.get().access_token_sealed == first.access_token_sealed


def test_a_state_started_by_another_user_is_refused(client, alice, server):
    upstream = oauth_upstream(server.url)
    back = sign_in(authorization_url(client, upstream), "alice")
    client.force_login(User.objects.create_user("mallory", is_staff=True))

    page = callback(client, back)

    assert page_messages(page) == ["Not connected: this authorization was started by another user"]
    assert not Grant.objects.exists()


def test_an_answer_with_another_issuer_is_refused(client, alice):
    with run_oauth_server("--wrong-iss") as wrong:
        upstream = oauth_upstream(wrong.url)
        page = connect(client, upstream, "alice")
    (message,) = page_messages(page)
    assert "from issuer https://impostor.example, not http://127.0.0.1:" in message
    assert "(RFC 9207)" in message
    assert not Grant.objects.exists()


def test_a_token_for_another_resource_is_refused_and_revoked(client, alice):
    elsewhere = "https://elsewhere.example/mcp"
    with run_oauth_server("--token-audience", elsewhere) as other:
        upstream = oauth_upstream(other.url)
        page = connect(client, upstream, "alice")
        stats = httpx2.get(f"http://127.0.0.1:{other.port}/test/stats").json()
    (message,) = page_messages(page)
    assert f"the token is for another resource ({elsewhere}), not {other.url}" in message
    assert not Grant.objects.exists()
    assert stats["revoked"] == 1


def test_connect_to_a_server_without_oauth_says_so(client, alice, echo_http_url):
    upstream = oauth_upstream(echo_http_url)
    page = client.post(f"/admin/gateway/grant/connect/{upstream.pk}/", follow=True)
    (message,) = page_messages(page)
    assert "answered HTTP 400 without a token, not 401: it does not ask for OAuth" in message
    assert not PendingAuthorization.objects.exists()


def test_only_a_superuser_connects_a_shared_grant(client, alice, server):
    upstream = oauth_upstream(server.url, mode="shared")
    assert client.post(f"/admin/gateway/grant/connect/{upstream.pk}/").status_code == 403
    admin = User.objects.create_superuser("root", password="pw-root-123")
    client.force_login(admin)

    page = connect(client, upstream, "team-account")

    assert page_messages(page) == ["Connected hosted for the team (shared)."]
    token = async_to_sync(access_token)(upstream.pk, alice.pk)
    assert token == async_to_sync(access_token)(upstream.pk, None)
    assert whoami(server.url, token) == "team-account"


@pytest.fixture(scope="module")
def echo_http_url():
    with run_http_server() as running:
        yield running.url
