"""What upstream connections call for the token to send: the grant's current access token,
refreshed before it expires or after the upstream refused it.

    access_token(upstream_id, member_id)          -> str, or AuthorizationRequired
    token_rejected(upstream_id, member_id, token) -> str, or AuthorizationRequired
    grant_mode(upstream)                          -> "none" | "member" | "shared" | "machine"

`member_id` is the Django user owning the calling client (None for a team client). With
per-member grants it selects the member's own grant; with shared or machine grants the team's
grant serves everyone.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from gateway.upstream_auth import grant_store
from gateway.upstream_auth.discovery import DiscoveryError
from gateway.upstream_auth.machine import connect_machine
from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth
from gateway.upstream_auth.refresh import refreshed
from localrouter.encryption import UndecryptableSecret

REFRESH_AHEAD = timedelta(seconds=60)
"""A token that expires within this long is refreshed before it is used."""


class AuthorizationRequired(Exception):
    """No usable grant: someone must connect (or reconnect) the upstream in the admin."""

    def __init__(self, upstream_name: str, upstream_id: int, reason: str) -> None:
        self.upstream_name = upstream_name
        self.connect_url = connect_url(upstream_id)
        self.reason = reason
        super().__init__(
            f"upstream {upstream_name!r} needs authorization: {reason}; connect it at "
            f"{self.connect_url}"
        )


def connect_url(upstream_id: int) -> str:
    """The admin page where a member connects the upstream (absolute: LOCALROUTER_PUBLIC_URL,
    else the address `manage.py serve` listens on)."""
    path = reverse("admin:gateway_grant_connect", args=[upstream_id])
    base = settings.PUBLIC_URL or f"http://{settings.SERVE_HOST}:{settings.SERVE_PORT}"
    return base + path


def grant_mode(upstream) -> str:
    """How `upstream` (an Upstream) is authorized: 'none', 'member', 'shared' or 'machine'."""
    try:
        return upstream.auth.mode
    except UpstreamAuth.DoesNotExist:
        return GrantMode.NONE


async def access_token(upstream_id: int, member_id: int | None) -> str:
    """The current access token of the grant serving `member_id` on the upstream, refreshed
    first when it expires within a minute.

    Raises:
        AuthorizationRequired: no grant, or it needs re-authorization.
    """
    grant, name = await _usable_grant(upstream_id, member_id)
    token = _opened_access(grant, name)
    if _expiring(grant):
        return await _refresh(grant, name, token)
    return token


def _expiring(grant: Grant) -> bool:
    """Whether the grant's token expires within a minute, or within half its lifetime for
    tokens that live less than two minutes (so that they are not refreshed on every call)."""
    if grant.expires_at is None:
        return False
    issued = grant.tokens_issued_at or grant.created_at
    ahead = min(REFRESH_AHEAD, (grant.expires_at - issued) / 2)
    return grant.expires_at - timezone.now() < ahead


async def token_rejected(upstream_id: int, member_id: int | None, token: str) -> str:
    """The upstream answered 401 to `token`: the grant's newer token if another worker already
    refreshed it, else a refreshed one.

    Raises:
        AuthorizationRequired: the refresh failed; the grant is marked for re-authorization.
    """
    grant, name = await _usable_grant(upstream_id, member_id)
    return await _refresh(grant, name, token)


async def _usable_grant(upstream_id: int, member_id: int | None) -> tuple[Grant, str]:
    name, mode = await grant_store.upstream_mode(upstream_id)
    if mode == GrantMode.NONE:
        raise AuthorizationRequired(name, upstream_id, "it is not set up for OAuth")
    if mode == GrantMode.MEMBER and member_id is None:
        raise AuthorizationRequired(
            name, upstream_id, "each member connects it, and this client belongs to no member"
        )
    grant = await grant_store.find_grant(upstream_id, grant_store.grant_member(mode, member_id))
    if grant is None and mode == GrantMode.MACHINE:
        grant = await _machine_grant(upstream_id, name)
    if grant is None:
        who = "you have not" if mode == GrantMode.MEMBER else "nobody has"
        raise AuthorizationRequired(name, upstream_id, f"{who} connected it yet")
    if grant.needs_reauthorization:
        raise AuthorizationRequired(
            name, upstream_id, f"the grant needs re-authorization ({grant.problem})"
        )
    return grant, name


async def _machine_grant(upstream_id: int, name: str) -> Grant:
    auth = await UpstreamAuth.objects.select_related("upstream").aget(upstream_id=upstream_id)
    try:
        return await connect_machine(auth, auth.upstream.url)
    except DiscoveryError as error:
        raise AuthorizationRequired(name, upstream_id, str(error)) from None


def _opened_access(grant: Grant, name: str) -> str:
    try:
        return grant.opened("access_token")
    except UndecryptableSecret as error:
        raise AuthorizationRequired(name, grant.upstream_id, str(error)) from None


async def _refresh(grant: Grant, name: str, seen_token: str) -> str:
    outcome = await refreshed(grant.pk, seen_token)
    if outcome.token is None:
        raise AuthorizationRequired(name, grant.upstream_id, outcome.problem)
    return outcome.token
