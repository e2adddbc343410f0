"""The gateway's client at an authorization server, in this order: the credentials a superuser
entered for the upstream; a Client ID Metadata Document the gateway serves at its public
https address; dynamic client registration (RFC 7591), kept per issuer."""

from __future__ import annotations

import httpx2
from django.conf import settings
from django.db import IntegrityError
from django.urls import reverse
from mcp.client.auth import OAuthRegistrationError
from mcp.client.auth.utils import handle_registration_response
from mcp.shared.auth import OAuthClientMetadata

from gateway.upstream_auth.discovery import AuthServer, DiscoveryError
from gateway.upstream_auth.models import AuthServerClient, RegistrationMethod, UpstreamAuth
from gateway.upstream_auth.token_endpoint import ClientCredentials, http_client

CLIENT_NAME = "LocalRouter"
GRANT_TYPES = ["authorization_code", "refresh_token"]


def metadata_document_url() -> str:
    """Where the gateway's Client ID Metadata Document is served ('' without a public https
    address: a document must be reachable by the authorization server)."""
    if not settings.PUBLIC_URL.startswith("https://"):
        return ""
    return settings.PUBLIC_URL + reverse("admin:gateway_grant_client_metadata")


def metadata_document(redirect_uri: str) -> dict:
    """The Client ID Metadata Document: the gateway as an OAuth client."""
    return {
        "client_id": metadata_document_url(),
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": GRANT_TYPES,
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }


async def client_for(
    auth: UpstreamAuth, server: AuthServer, redirect_uri: str
) -> ClientCredentials:
    """The client to authorize as at `server`, registering one when needed.

    Raises:
        DiscoveryError: no entered credentials, no usable metadata document, and the
            server offers no registration (or refused it).
    """
    if auth.client_id:
        return ClientCredentials(auth.client_id, auth.opened("client_secret"))
    document_url = metadata_document_url()
    if document_url and server.metadata.client_id_metadata_document_supported:
        return ClientCredentials(document_url)
    known = await AuthServerClient.objects.filter(
        issuer=server.issuer, redirect_uri=redirect_uri
    ).afirst()
    if known is None:
        known = await _register(server, redirect_uri)
    return ClientCredentials(known.client_id, known.opened("client_secret"))


async def _register(server: AuthServer, redirect_uri: str) -> AuthServerClient:
    endpoint = server.metadata.registration_endpoint
    if endpoint is None:
        raise DiscoveryError(
            f"the authorization server {server.issuer} offers no client registration: "
            "enter a client id (and secret) for this upstream"
        )
    request = OAuthClientMetadata(
        redirect_uris=[redirect_uri],
        client_name=CLIENT_NAME,
        grant_types=GRANT_TYPES,
        token_endpoint_auth_method="client_secret_post",
        application_type="web",
        scope=server.scope or None,
    )
    try:
        async with http_client() as http:
            response = await http.post(
                str(endpoint), json=request.model_dump(mode="json", exclude_none=True)
            )
        info = await handle_registration_response(response)
    except (httpx2.HTTPError, OAuthRegistrationError) as error:
        raise DiscoveryError(f"client registration at {server.issuer} failed: {error}") from None
    registered = AuthServerClient(
        issuer=server.issuer,
        redirect_uri=redirect_uri,
        method=RegistrationMethod.DYNAMIC,
        client_id=info.client_id,
    )
    registered.seal("client_secret", info.client_secret or "")
    try:
        await registered.asave()
    except IntegrityError:  # another worker registered first: use its client
        return await AuthServerClient.objects.aget(issuer=server.issuer, redirect_uri=redirect_uri)
    return registered
