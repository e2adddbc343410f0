"""What a user sees of the OAuth upstreams: one row per upstream with the grant that would
serve them, and what they may do about it."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth


@dataclass(frozen=True)
class ConnectionRow:
    upstream_id: int
    upstream: str
    mode: str
    mode_label: str
    grant: Grant | None
    may_connect: bool

    @property
    def state(self) -> str:
        if self.grant is None:
            return "not connected"
        if self.grant.needs_reauthorization:
            return "needs re-authorization"
        return "connected"


def team_grant_mode(mode: str) -> bool:
    return mode in (GrantMode.SHARED, GrantMode.MACHINE)


def may_connect(user, mode: str) -> bool:
    """Members connect their own grants; only a superuser connects the team's."""
    return mode == GrantMode.MEMBER or (team_grant_mode(mode) and user.is_superuser)


def connection_rows(user) -> list[ConnectionRow]:
    """Every enabled OAuth upstream with the grant serving `user` there."""
    auths = (
        UpstreamAuth.objects.exclude(mode=GrantMode.NONE)
        .filter(upstream__enabled=True)
        .select_related("upstream")
        .order_by("upstream__name")
    )
    rows = []
    for auth in auths:
        member = user if auth.mode == GrantMode.MEMBER else None
        grant = Grant.objects.filter(upstream_id=auth.upstream_id, member=member).first()
        label = {"member": "yours", "shared": "shared", "machine": "machine"}[auth.mode]
        rows.append(
            ConnectionRow(
                auth.upstream_id,
                auth.upstream.name,
                auth.mode,
                label,
                grant,
                may_connect(user, auth.mode),
            )
        )
    return rows


def oauth_context(upstream) -> dict:
    """What the upstream's admin page shows of its OAuth: its settings and its grants (the
    team's first); nothing for a stdio upstream."""
    if upstream.transport == "stdio":
        return {}
    auth = UpstreamAuth.objects.filter(upstream=upstream).first()
    grants = Grant.objects.filter(upstream=upstream).select_related("member")
    on = auth is not None and auth.mode != GrantMode.NONE
    return {
        "oauth": auth,
        "oauth_grants": list(grants.order_by("member__username")) if on else None,
    }
