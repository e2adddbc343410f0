"""Refresh a grant's access token, one refresh at a time per grant; a failure keeps the row
and, when no retry will mend it, marks the grant as needing re-authorization."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.upstream_auth import grant_store
from gateway.upstream_auth.models import Grant, GrantMode
from gateway.upstream_auth.refresh_lock import grant_lock
from gateway.upstream_auth.token_endpoint import (
    ClientCredentials,
    TokenEndpointError,
    request_tokens,
)
from localrouter.encryption import UndecryptableSecret


@dataclass(frozen=True)
class Refreshed:
    """The new access token, or None and why there is none."""

    token: str | None
    problem: str = ""


async def refreshed(grant_id: int, seen_token: str) -> Refreshed:
    """A token newer than `seen_token`: another worker's refresh if one happened while this
    one waited for the lock, else a refresh of its own."""
    async with grant_lock(grant_id):
        grant = await Grant.objects.filter(pk=grant_id).afirst()
        if grant is None:
            return Refreshed(None, "the grant was disconnected")
        if grant.needs_reauthorization:
            return Refreshed(None, f"the grant needs re-authorization ({grant.problem})")
        try:
            current = grant.opened("access_token")
            if current != seen_token:
                return Refreshed(current)
            return await _refresh(grant)
        except UndecryptableSecret as error:
            await grant_store.mark_needs_reauthorization(grant, str(error))
            return Refreshed(None, str(error))


async def _refresh(grant: Grant) -> Refreshed:
    client = ClientCredentials(grant.client_id, grant.opened("client_secret"))
    if grant.mode == GrantMode.MACHINE:
        form = {"grant_type": "client_credentials", "resource": grant.resource}
        if grant.scope:
            form["scope"] = grant.scope
    else:
        refresh_token = grant.opened("refresh_token")
        if not refresh_token:
            problem = "the access token expired and the server gave no refresh token"
            await grant_store.mark_needs_reauthorization(grant, problem)
            return Refreshed(None, problem)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "resource": grant.resource,
        }
    try:
        tokens = await request_tokens(grant.token_endpoint, form, client)
    except TokenEndpointError as error:
        problem = f"refresh refused: {error}"
        if error.terminal:
            await grant_store.mark_needs_reauthorization(grant, problem)
        return Refreshed(None, problem)
    await grant_store.save_refreshed(grant, tokens)
    return Refreshed(tokens.access_token)
