"""Machine grants: `client_credentials` with the client a superuser entered for the upstream."""

from __future__ import annotations

from django.db import IntegrityError

from gateway.upstream_auth.audience import foreign_audience
from gateway.upstream_auth.discovery import DiscoveryError, discover
from gateway.upstream_auth.grant_store import connected_grant
from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth
from gateway.upstream_auth.token_endpoint import (
    ClientCredentials,
    TokenEndpointError,
    request_tokens,
    revoke,
)


async def connect_machine(auth: UpstreamAuth, upstream_url: str, user=None) -> Grant:
    """A fresh machine grant for the upstream of `auth` (replacing any earlier one).

    Raises:
        DiscoveryError: no entered client, no authorization server found, the token was
            refused or is for another resource (then it is revoked, where the server
            revokes tokens).
    """
    if not auth.client_id:
        raise DiscoveryError("a machine grant needs the client id and secret entered for it")
    server = await discover(upstream_url)
    client = ClientCredentials(auth.client_id, auth.opened("client_secret"))
    scope = auth.scopes or server.scope
    form = {"grant_type": "client_credentials", "resource": server.resource}
    if scope:
        form["scope"] = scope
    try:
        tokens = await request_tokens(server.token_endpoint, form, client)
    except TokenEndpointError as error:
        raise DiscoveryError(f"client credentials refused: {error}") from None
    audience = foreign_audience(tokens.access_token, server.resource)
    if audience is not None:  # not kept, and not left valid where it could be used
        if server.revocation_endpoint:
            await revoke(server.revocation_endpoint, tokens.access_token, "access_token", client)
        raise DiscoveryError(f"the token is for another resource ({audience})")
    grant = await connected_grant(
        auth.upstream_id, None, GrantMode.MACHINE, server, client, scope, user, tokens
    )
    try:
        await grant.asave()
    except IntegrityError:  # another worker stored one first: use it
        return await Grant.objects.aget(upstream_id=auth.upstream_id, member=None)
    return grant
