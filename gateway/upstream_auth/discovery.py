"""Find an upstream's authorization server as the MCP authorization spec says: the 401's
`WWW-Authenticate` names the protected resource metadata (RFC 9728), which names the
authorization server, whose metadata comes from RFC 8414 or OpenID discovery."""

from __future__ import annotations

from dataclasses import dataclass

import httpx2
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    build_protected_resource_metadata_discovery_urls,
    extract_resource_metadata_from_www_auth,
    extract_scope_from_www_auth,
    handle_auth_metadata_response,
    handle_protected_resource_response,
    validate_metadata_issuer,
)
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from gateway.upstream_auth.token_endpoint import http_client

PROBE = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
"""What the upstream is asked without a token, to get its 401."""


class DiscoveryError(Exception):
    """The upstream's authorization server could not be found or is not usable."""


@dataclass(frozen=True)
class AuthServer:
    """An upstream's authorization server, as discovered."""

    resource: str
    """The protected resource's identifier, sent as `resource` (RFC 8707)."""
    issuer: str
    metadata: OAuthMetadata
    scope: str
    """Scopes the upstream asks for (WWW-Authenticate, else its metadata); '' for none."""

    @property
    def token_endpoint(self) -> str:
        return str(self.metadata.token_endpoint)

    @property
    def revocation_endpoint(self) -> str:
        return str(self.metadata.revocation_endpoint or "")


async def discover(upstream_url: str) -> AuthServer:
    """The authorization server protecting `upstream_url`.

    Raises:
        DiscoveryError: the upstream asks for no authorization, or its metadata is missing,
            names another resource, or offers no PKCE S256.
    """
    async with http_client() as http:
        try:
            probe = await http.post(
                upstream_url,
                json=PROBE,
                headers={"Accept": "application/json, text/event-stream"},
            )
        except httpx2.HTTPError as error:
            raise DiscoveryError(
                f"the upstream could not be reached ({type(error).__name__})"
            ) from None
        if probe.status_code != 401:
            raise DiscoveryError(
                f"the upstream answered HTTP {probe.status_code} without a token, not 401: "
                "it does not ask for OAuth"
            )
        resource_metadata = await _resource_metadata(http, probe, upstream_url)
        resource = str(resource_metadata.resource)
        if not check_resource_allowed(resource_url_from_server_url(upstream_url), resource):
            raise DiscoveryError(
                f"the protected resource metadata is for {resource}, not for {upstream_url}"
            )
        if not resource_metadata.authorization_servers:
            raise DiscoveryError("the protected resource metadata names no authorization server")
        issuer = str(resource_metadata.authorization_servers[0])
        metadata = await _server_metadata(http, issuer, upstream_url)
    scope = extract_scope_from_www_auth(probe) or " ".join(resource_metadata.scopes_supported or [])
    return AuthServer(resource=resource, issuer=issuer, metadata=metadata, scope=scope)


async def _resource_metadata(
    http: httpx2.AsyncClient, probe: httpx2.Response, upstream_url: str
) -> ProtectedResourceMetadata:
    named = extract_resource_metadata_from_www_auth(probe)
    for url in build_protected_resource_metadata_discovery_urls(named, upstream_url):
        try:
            found = await handle_protected_resource_response(await http.get(url))
        except httpx2.HTTPError:
            continue
        if found is not None:
            return found
    raise DiscoveryError("the upstream publishes no protected resource metadata (RFC 9728)")


async def _server_metadata(
    http: httpx2.AsyncClient, issuer: str, upstream_url: str
) -> OAuthMetadata:
    for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, upstream_url):
        try:
            keep_trying, metadata = await handle_auth_metadata_response(await http.get(url))
        except httpx2.HTTPError:
            continue
        if metadata is not None:
            try:
                validate_metadata_issuer(metadata, issuer)
            except OAuthFlowError as error:
                raise DiscoveryError(
                    f"the authorization server metadata is wrong: {error}"
                ) from None
            if "S256" not in (metadata.code_challenge_methods_supported or []):
                raise DiscoveryError(
                    f"the authorization server {issuer} does not offer PKCE with S256"
                )
            return metadata
        if not keep_trying:
            break
    raise DiscoveryError(f"no authorization server metadata found for {issuer}")
