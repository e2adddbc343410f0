"""Grants read and written: which grant serves a call, tokens saved after an exchange or a
refresh, and a grant marked as needing re-authorization (its tokens kept)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from gateway.models import Upstream
from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth
from gateway.upstream_auth.token_endpoint import ClientCredentials, Tokens

PROBLEM_CHARS = 500


async def upstream_mode(upstream_id: int) -> tuple[str, str]:
    """The upstream's name and grant mode ('none' without OAuth settings)."""
    row = await (
        UpstreamAuth.objects.filter(upstream_id=upstream_id)
        .values_list("upstream__name", "mode")
        .afirst()
    )
    if row is not None:
        return row
    name = await Upstream.objects.filter(pk=upstream_id).values_list("name", flat=True).afirst()
    return name or f"#{upstream_id}", GrantMode.NONE


def grant_member(mode: str, member_id: int | None) -> int | None:
    """Whose grant serves a call: the member's own with per-member grants, else the team's."""
    return member_id if mode == GrantMode.MEMBER else None


async def find_grant(upstream_id: int, member_id: int | None) -> Grant | None:
    return await Grant.objects.filter(upstream_id=upstream_id, member_id=member_id).afirst()


def expires_at(tokens: Tokens):
    if tokens.expires_in is None:
        return None
    return timezone.now() + timedelta(seconds=tokens.expires_in)


async def connected_grant(
    upstream_id: int,
    member,
    mode: str,
    server: Any,
    client: ClientCredentials,
    scope: str,
    user,
    tokens: Tokens,
) -> Grant:
    """The grant of (upstream, member; None: the team's) for a connection just made, unsaved:
    the row already there or a new one, with the authorization server (`server`: anything with
    its issuer, resource, token and revocation endpoints), the client, who connected it and
    its new tokens (no earlier refresh token kept)."""
    grant = await Grant.objects.filter(upstream_id=upstream_id, member=member).afirst()
    grant = grant or Grant(upstream_id=upstream_id, member=member)
    grant.mode = mode
    grant.issuer = server.issuer
    grant.resource = server.resource
    grant.token_endpoint = server.token_endpoint
    grant.revocation_endpoint = server.revocation_endpoint
    grant.client_id = client.client_id
    grant.seal("client_secret", client.client_secret)
    grant.scope = scope
    grant.connected_by = user
    grant.seal("refresh_token", "")
    apply_tokens(grant, tokens)
    return grant


def apply_tokens(grant: Grant, tokens: Tokens) -> None:
    """Put freshly issued tokens on `grant` (a refresh that sends no new refresh token keeps
    the old one) and clear any earlier problem."""
    grant.seal("access_token", tokens.access_token)
    if tokens.refresh_token:
        grant.seal("refresh_token", tokens.refresh_token)
    grant.expires_at = expires_at(tokens)
    if tokens.scope:
        grant.scope = tokens.scope
    grant.tokens_issued_at = timezone.now()
    grant.needs_reauthorization = False
    grant.problem = ""


async def save_refreshed(grant: Grant, tokens: Tokens) -> None:
    apply_tokens(grant, tokens)
    await grant.asave()


async def mark_needs_reauthorization(grant: Grant, problem: str) -> None:
    """Flag `grant` for the admin and upstream health; its row and tokens stay."""
    grant.needs_reauthorization = True
    grant.problem = problem[:PROBLEM_CHARS]
    await grant.asave(update_fields=["needs_reauthorization", "problem"])


def upstream_grant_problems(upstream_id: int) -> list[str]:
    """Who needs to authorize `upstream` again (for its health), e.g. ['alice', 'the team']."""
    rows = Grant.objects.filter(upstream_id=upstream_id, needs_reauthorization=True)
    return [
        row.member.get_username() if row.member else "the team"
        for row in rows.select_related("member")
    ]
