"""Whether an access token was issued for another resource: a JWT access token (RFC 9068)
says so in `aud`; an opaque token says nothing, and is taken as issued for what was asked."""

from __future__ import annotations

import base64
import json

from mcp.shared.auth_utils import check_resource_allowed


def token_audiences(token: str) -> list[str] | None:
    """The `aud` of a JWT access token, or None when the token is not a readable JWT.

    The signature is not checked: the upstream checks it; the gateway only refuses to keep a
    token that plainly names another resource."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    audience = claims.get("aud") if isinstance(claims, dict) else None
    if isinstance(audience, str):
        return [audience]
    if isinstance(audience, list) and all(isinstance(item, str) for item in audience):
        return audience
    return None


def foreign_audience(token: str, resource: str) -> str | None:
    """The audience `token` names when none of it is `resource`, else None."""
    audiences = token_audiences(token)
    if audiences is None or any(check_resource_allowed(resource, aud) for aud in audiences):
        return None
    return ", ".join(audiences)
