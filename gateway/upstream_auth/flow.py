"""The Connect flow: an authorization request sent through the member's browser (PKCE S256,
`resource`, a single-use `state` bound to the member), and its callback checked (`state`,
`iss`, the token's audience) before the grant is stored."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from django.utils import timezone
from mcp.client.auth.oauth2 import PKCEParameters

from gateway.models import Upstream
from gateway.upstream_auth.audience import foreign_audience
from gateway.upstream_auth.discovery import discover
from gateway.upstream_auth.grant_store import connected_grant
from gateway.upstream_auth.models import Grant, GrantMode, PendingAuthorization, UpstreamAuth
from gateway.upstream_auth.registration import client_for
from gateway.upstream_auth.token_endpoint import (
    ClientCredentials,
    TokenEndpointError,
    request_tokens,
    revoke,
)

STATE_LIFETIME = timedelta(minutes=10)


class AuthorizationFailed(Exception):
    """The callback is refused; nothing was stored. The message is safe to show."""


def state_hash(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


async def start_authorization(
    *, user, upstream: Upstream, auth: UpstreamAuth, redirect_uri: str
) -> str:
    """The authorization server's address to send `user`'s browser to.

    Raises:
        gateway.upstream_auth.discovery.DiscoveryError: the upstream's authorization server
            could not be found or used.
    """
    server = await discover(upstream.url)
    client = await client_for(auth, server, redirect_uri)
    abandoned = timezone.now() - STATE_LIFETIME
    await PendingAuthorization.objects.filter(created_at__lt=abandoned).adelete()
    pkce = PKCEParameters.generate()
    state = secrets.token_urlsafe(32)
    scope = auth.scopes or server.scope
    pending = PendingAuthorization(
        state_hash=state_hash(state),
        user=user,
        upstream=upstream,
        mode=auth.mode,
        issuer=server.issuer,
        iss_required=bool(server.metadata.authorization_response_iss_parameter_supported),
        resource=server.resource,
        redirect_uri=redirect_uri,
        token_endpoint=server.token_endpoint,
        revocation_endpoint=server.revocation_endpoint,
        client_id=client.client_id,
        scope=scope,
    )
    pending.seal("code_verifier", pkce.code_verifier)
    pending.seal("client_secret", client.client_secret)
    await pending.asave()
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": "S256",
        "resource": server.resource,
    }
    if scope:
        query["scope"] = scope
    return f"{server.metadata.authorization_endpoint}?{urlencode(query)}"


async def complete_authorization(*, user, params: dict[str, str]) -> Grant:
    """Check the authorization server's answer, exchange the code and store the grant.

    Raises:
        AuthorizationFailed: unknown, used, expired or foreign `state`; an error from the
            server; a wrong `iss`; a refused exchange; a token for another resource.
    """
    pending = await _take_pending(user, params.get("state", ""))
    if "error" in params:
        description = params.get("error_description", "")[:200]
        raise AuthorizationFailed(
            f"the authorization server refused: {params['error'][:80]} {description}".strip()
        )
    _check_issuer(pending, params.get("iss"))
    if not params.get("code"):
        raise AuthorizationFailed("the authorization server sent no code")
    client = ClientCredentials(pending.client_id, pending.opened("client_secret"))
    form = {
        "grant_type": "authorization_code",
        "code": params["code"],
        "redirect_uri": pending.redirect_uri,
        "code_verifier": pending.opened("code_verifier"),
        "resource": pending.resource,
    }
    try:
        tokens = await request_tokens(pending.token_endpoint, form, client)
    except TokenEndpointError as error:
        raise AuthorizationFailed(f"the code exchange was refused: {error}") from None
    audience = foreign_audience(tokens.access_token, pending.resource)
    if audience is not None:
        if pending.revocation_endpoint:
            await revoke(pending.revocation_endpoint, tokens.access_token, "access_token", client)
        raise AuthorizationFailed(
            f"the token is for another resource ({audience}), not {pending.resource}; "
            "nothing was stored"
        )
    return await _store(pending, user, client, tokens)


async def _take_pending(user, state: str) -> PendingAuthorization:
    """The pending authorization of `state`, deleted so that it serves once."""
    pending = await PendingAuthorization.objects.filter(state_hash=state_hash(state)).afirst()
    if pending is None:
        raise AuthorizationFailed(
            "unknown or already used authorization (state); start Connect again"
        )
    deleted, _ = await PendingAuthorization.objects.filter(pk=pending.pk).adelete()
    if not deleted:  # another request used it a moment ago
        raise AuthorizationFailed("this authorization (state) was already used")
    if pending.user_id != user.pk:
        raise AuthorizationFailed("this authorization was started by another user")
    if timezone.now() - pending.created_at > STATE_LIFETIME:
        raise AuthorizationFailed("this authorization expired; start Connect again")
    return pending


def _check_issuer(pending: PendingAuthorization, iss: str | None) -> None:
    """RFC 9207: the answer names the server it was sent to."""
    if iss is None:
        if pending.iss_required:
            raise AuthorizationFailed("the authorization server's answer has no iss (RFC 9207)")
        return
    if iss != pending.issuer:
        raise AuthorizationFailed(
            f"the answer comes from issuer {iss[:200]}, not {pending.issuer} (RFC 9207); "
            "nothing was stored"
        )


async def _store(pending: PendingAuthorization, user, client: ClientCredentials, tokens) -> Grant:
    member = user if pending.mode == GrantMode.MEMBER else None
    grant = await connected_grant(
        pending.upstream_id, member, pending.mode, pending, client, pending.scope, user, tokens
    )
    await grant.asave()
    return grant
