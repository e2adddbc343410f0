"""Disconnect: revoke the grant's tokens where the server offers revocation (RFC 7009), then
delete the grant."""

from __future__ import annotations

from gateway.upstream_auth.models import Grant
from gateway.upstream_auth.token_endpoint import ClientCredentials, revoke
from localrouter.encryption import UndecryptableSecret


async def disconnect(grant: Grant) -> bool:
    """Revoke and delete `grant`; whether the server confirmed the revocation."""
    revoked = False
    if grant.revocation_endpoint:
        try:
            client = ClientCredentials(grant.client_id, grant.opened("client_secret"))
            tokens = [
                (grant.opened("refresh_token"), "refresh_token"),
                (grant.opened("access_token"), "access_token"),
            ]
        except UndecryptableSecret:
            tokens = []
        for token, hint in tokens:
            if token:
                revoked = await revoke(grant.revocation_endpoint, token, hint, client) or revoked
    await grant.adelete()
    return revoked
