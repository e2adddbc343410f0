"""An OAuth access token presented at /mcp: whose client it is, or why it is refused.

Checked against the database on every call (the gateway keeps the answer a second at most),
so a revocation anywhere ends access on every worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from oauth2_provider.models import AccessToken

from clients.models import Client
from clients.services import MAX_TOKEN_LENGTH
from clients.tokens import hash_token
from localrouter.oauth_config import MCP_SCOPE


@dataclass(frozen=True)
class OAuthAccess:
    """The client a token lets in and until when, or an RFC 6750 error and why."""

    client: Client | None = None
    expires: datetime | None = None
    error: str = "invalid_token"  # or insufficient_scope; '' when the token is good
    description: str = "invalid, expired or revoked token"


def _refused(description: str, error: str = "invalid_token") -> OAuthAccess:
    return OAuthAccess(error=error, description=description)


def oauth_access(token: str, resource: str) -> OAuthAccess:
    """Check a token for this resource (audience), expiry, scope and its client (synchronous)."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return _refused("invalid token")
    access = (
        AccessToken.objects.select_related("user", "application")
        .filter(token_checksum=hash_token(token))
        .first()
    )
    if access is None or access.user is None or access.application is None:
        return _refused("invalid or revoked token")
    if access.is_expired():
        return _refused("the access token expired")
    if resource not in (access.resource or []):
        return _refused("the access token was issued for another resource")
    if MCP_SCOPE not in access.scope.split():
        return _refused(f"the access token lacks the '{MCP_SCOPE}' scope", "insufficient_scope")
    if not access.user.is_active:
        return _refused("the member's account is inactive")
    client = Client.objects.filter(
        owner=access.user, oauth_application=access.application, is_active=True
    ).first()
    if client is None:
        return _refused("the application's client was revoked")
    return OAuthAccess(client=client, expires=access.expires, error="", description="")
