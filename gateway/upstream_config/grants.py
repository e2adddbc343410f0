"""Which grant a client's connection to an upstream carries, and the token source it uses.

A spec from the directory names the upstream's grant (`GrantRef`) without a member. For a
client, `spec_for_client` fills in the member: the client's owner for an upstream with
per-member grants (an unowned team client has none, so it can never carry a member's
token); nobody for shared and machine grants, whose one connection serves every client.
`GrantBearer` hands that connection its grant's tokens (`gateway.upstream_auth.tokens`).
"""

from __future__ import annotations

from dataclasses import replace

from gateway.upstream_auth.tokens import AuthorizationRequired, access_token, token_rejected
from gateway.upstreams import BearerUnavailable, GrantRef, UpstreamError, UpstreamSpec


class GrantRequired(UpstreamError):
    """The client's member (or the team) has no usable grant for the upstream: someone must
    connect it at `connect_url` first. Nothing was sent to the upstream."""

    def __init__(self, required: AuthorizationRequired) -> None:
        super().__init__(required.upstream_name, "unavailable", str(required))
        self.connect_url = required.connect_url
        self.reason = required.reason

    def client_message(self) -> str:
        return f"Upstream {self.upstream!r} is not connected: {self.message}"


def spec_for_client(spec: UpstreamSpec, member: int | None) -> UpstreamSpec:
    """`spec` as a client owned by `member` (None: a team client) reaches it."""
    if spec.grant is None or spec.grant.mode != "member" or spec.grant.member == member:
        return spec
    return replace(spec, grant=replace(spec.grant, member=member))


async def require_grant(spec: UpstreamSpec) -> None:
    """Check that the connection of `spec` has a grant to carry (its token as `access_token`
    gives it: from this worker's token cache, else the database).

    Raises:
        GrantRequired: it has none, or it needs re-authorization.
    """
    if spec.grant is None:
        return
    try:
        await access_token(spec.grant.upstream_id, spec.grant.holder)
    except AuthorizationRequired as required:
        raise GrantRequired(required) from None


class GrantBearer:
    """The token source (`gateway.upstreams.bearer.BearerSource`) of one connection: the
    current token of the one grant it carries, a refreshed one when the upstream refuses it."""

    def __init__(self, grant: GrantRef) -> None:
        self.grant = grant

    async def token(self) -> str:
        try:
            return await access_token(self.grant.upstream_id, self.grant.holder)
        except AuthorizationRequired as required:
            raise BearerUnavailable(str(required)) from None

    async def rejected(self, token: str) -> str:
        try:
            return await token_rejected(self.grant.upstream_id, self.grant.holder, token)
        except AuthorizationRequired as required:
            raise BearerUnavailable(str(required)) from None


def bearer_for(spec: UpstreamSpec) -> GrantBearer | None:
    """The token source of a spec's connection (the pool's `bearer_for`); None for a spec
    that carries no grant."""
    return GrantBearer(spec.grant) if spec.grant is not None else None
