"""The OAuth settings of an upstream in the admin (the client secret written, never shown),
its connections on its page, and the registration order (entered > metadata document > DCR)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.test import override_settings
from mcp.shared.auth import OAuthMetadata

from gateway.models import Upstream
from gateway.operations.audit.models import AuditEvent
from gateway.upstream_auth.discovery import AuthServer
from gateway.upstream_auth.models import Grant, UpstreamAuth
from gateway.upstream_auth.registration import client_for

pytestmark = pytest.mark.django_db(transaction=True)
SECRET = "cs-0123456789-very-secret"


def settings_form(upstream: Upstream, **fields) -> dict:
    return {"upstream": str(upstream.pk), "mode": "member", "client_id": "", "scopes": "", **fields}


def test_the_client_secret_is_stored_encrypted_and_never_shown(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    page = staff.post(
        "/admin/gateway/upstreamauth/add/",
        settings_form(upstream, client_id="entered", client_secret=SECRET),
    )
    assert page.status_code == 302, page.context["errors"] if page.context else page
    auth = UpstreamAuth.objects.get()
    assert auth.opened("client_secret") == SECRET and SECRET not in auth.client_secret_sealed

    settings_page = staff.get(f"/admin/gateway/upstreamauth/{auth.pk}/change/")
    upstream_page = staff.get(f"/admin/gateway/upstream/{upstream.pk}/change/")

    assert SECRET.encode() not in settings_page.content + upstream_page.content
    assert b"Nobody has connected" in upstream_page.content
    (event,) = AuditEvent.objects.filter(kind="change")
    assert event.action == "added" and SECRET not in str(event.fields)


def test_saving_without_a_secret_keeps_the_stored_one(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    auth = UpstreamAuth(upstream=upstream, mode="member", client_id="entered")
    auth.seal("client_secret", SECRET)
    auth.save()
    data = settings_form(upstream, client_id="entered", scopes="read")
    page = staff.post(f"/admin/gateway/upstreamauth/{auth.pk}/change/", data)
    assert page.status_code == 302
    auth.refresh_from_db()
    assert auth.opened("client_secret") == SECRET and auth.scopes == "read"


def test_an_http_upstream_without_oauth_links_to_its_set_up(staff):
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://h.example/mcp")
    page = staff.get(f"/admin/gateway/upstream/{upstream.pk}/change/")
    assert (
        f'href="/admin/gateway/upstreamauth/add/?upstream={upstream.pk}"'.encode() in page.content
    )
    form = staff.get(f"/admin/gateway/upstreamauth/add/?upstream={upstream.pk}")
    assert form.context["adminform"].form.initial["upstream"] == str(upstream.pk)


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
