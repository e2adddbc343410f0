"""This gateway as an OAuth protected resource: its identifier and metadata address."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest

from localrouter.public_url import absolute_url

MCP_PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource"


def mcp_resource_url(request: HttpRequest | None = None) -> str:
    """The resource identifier tokens are issued for: the /mcp address clients use."""
    return absolute_url(MCP_PATH, request)


def issuer_url(request: HttpRequest | None = None) -> str:
    """The authorization server's issuer: this gateway's address, without a trailing slash."""
    return absolute_url("/", request).rstrip("/")


def resource_for_uri(uri: str) -> str:
    """The resource identifier as seen from a request to `uri` (an absolute URL)."""
    if settings.PUBLIC_URL:
        return settings.PUBLIC_URL + MCP_PATH
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}{MCP_PATH}"


def resource_metadata_url(resource: str) -> str:
    """RFC 9728's path-suffixed metadata address for a resource identifier."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}{METADATA_PATH}{parts.path}"
