"""The resource identifier of /mcp as one request reached it (OAuth tokens' audience)."""

from __future__ import annotations

from django.conf import settings

from clients.oauth.resource import resource_for_uri


def resource_url(scope: dict) -> str:
    """LOCALROUTER_PUBLIC_URL + /mcp, or the request's own scheme and Host + /mcp."""
    headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
    scheme = scope.get("scheme", "http")
    if settings.BEHIND_TLS_PROXY and headers.get(b"x-forwarded-proto") == "https":
        scheme = "https"
    return resource_for_uri(f"{scheme}://{headers.get(b'host', '')}/")
