"""The OAuth settings of an upstream in the admin (the client secret written, never shown),
its connections on its page, and the registration order (entered > metadata document > DCR)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.test import override_settings
from mcp.shared.auth import OAuthMetadata

from gateway.models import Upstream
from gateway.upstream_auth.discovery import AuthServer
from gateway.upstream_auth.models import Grant, UpstreamAuth
from gateway.upstream_auth.registration import client_for

pytestmark = pytest.mark.django_db(transaction=True)
SECRET = "cs-0123456789-very-secret"


def form_data(target: Upstream, **auth) -> dict:
    return {
        "name": target.name,
        "transport": "http",
        "url": target.url,
        "headers_text": "",
        "enabled": "on",
        "timeout_seconds": "60",
        "auth-TOTAL_FORMS": "1",
        "auth-INITIAL_FORMS": "0",
        "auth-MIN_NUM_FORMS": "0",
        "auth-MAX_NUM_FORMS": "1",
        "auth-0-mode": "member",
        "auth-0-client_id": "",
        "auth-0-scopes": "",
        **{f"auth-0-{key}": value for key, value in auth.items()},
    }


def test_the_client_secret_is_stored_encrypted_and_never_shown(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    page = staff.post(
        f"/admin/gateway/upstream/{upstream.pk}/change/",
        form_data(upstream, client_id="entered", client_secret=SECRET),
    )
    assert page.status_code == 302, page.context["errors"] if page.context else page
    auth = UpstreamAuth.objects.get()
    assert auth.opened("client_secret") == SECRET and SECRET not in auth.client_secret_sealed

    shown = staff.get(f"/admin/gateway/upstream/{upstream.pk}/change/")

    assert SECRET.encode() not in shown.content
    assert b"OAuth connections" in shown.content and b"Nobody has connected" in shown.content


def test_saving_without_a_secret_keeps_the_stored_one(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    auth = UpstreamAuth(upstream=upstream, mode="member", client_id="entered")
    auth.seal("client_secret", SECRET)
    auth.save()
    data = form_data(upstream, client_id="entered", id=str(auth.pk), upstream=str(upstream.pk))
    data["auth-INITIAL_FORMS"] = "1"
    assert staff.post(f"/admin/gateway/upstream/{upstream.pk}/change/", data).status_code == 302
    auth.refresh_from_db()
    assert auth.opened("client_secret") == SECRET


def test_a_shared_grant_is_labelled_shared_on_the_upstream_page(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    UpstreamAuth.objects.create(upstream=upstream, mode="shared")
    grant = Grant(upstream=upstream, mode="shared", issuer="i", resource="r", token_endpoint="t")
    grant.seal("access_token", "at-secret")
    grant.save()

    page = staff.get(f"/admin/gateway/upstream/{upstream.pk}/change/")

    assert b'<span class="grant-shared">shared (the whole team)</span>' in page.content
    assert b"at-secret" not in page.content


def server(**metadata) -> AuthServer:
    return AuthServer(
        resource="https://h.example/mcp",
        issuer="https://as.example/",
        metadata=OAuthMetadata(
            issuer="https://as.example/",
            authorization_endpoint="https://as.example/authorize",
            token_endpoint="https://as.example/token",
            code_challenge_methods_supported=["S256"],
            **metadata,
        ),
        scope="",
    )


def test_entered_credentials_come_before_a_metadata_document():
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    auth = UpstreamAuth.objects.create(upstream=upstream, mode="member", client_id="entered")
    with override_settings(PUBLIC_URL="https://gw.example"):
        client = async_to_sync(client_for)(
            auth, server(client_id_metadata_document_supported=True), "https://gw.example/cb"
        )
    assert client.client_id == "entered"


def test_a_metadata_document_is_used_on_a_public_https_address(client):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    auth = UpstreamAuth.objects.create(upstream=upstream, mode="member")
    with override_settings(PUBLIC_URL="https://gw.example"):
        found = async_to_sync(client_for)(
            auth, server(client_id_metadata_document_supported=True), "https://gw.example/cb"
        )
        document = client.get("/admin/gateway/grant/client-metadata.json").json()
    assert found.client_id == "https://gw.example/admin/gateway/grant/client-metadata.json"
    assert document["client_id"] == found.client_id
    assert document["redirect_uris"] == ["https://gw.example/admin/gateway/grant/callback/"]


def test_without_https_there_is_no_metadata_document(client):
    with override_settings(PUBLIC_URL="http://gw.example"):
        assert client.get("/admin/gateway/grant/client-metadata.json").status_code == 404
