"""The enabled upstreams and their live connections, as the request path reaches them."""

from __future__ import annotations

import asyncio

from gateway.catalog.listings import Listings
from gateway.upstream_auth.tokens import connect_url
from gateway.upstream_config.directory import Granted, UpstreamDirectory, directory
from gateway.upstream_config.grants import require_grant, spec_for_client
from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamPool, UpstreamSpec


class EnabledUpstreams:
    """name -> spec of every enabled upstream, and the pooled connection to each.

    When the configuration changes, the listings' version moves on (catalogs are
    recomputed) and a deleted or disabled upstream's process is stopped. So it does when a
    grant is connected or lost: catalogs show an upstream as connected or not.
    """

    def __init__(
        self,
        pool: UpstreamPool,
        listings: Listings,
        upstream_directory: UpstreamDirectory = directory,
    ) -> None:
        self.pool = pool
        self.listings = listings
        self.directory = upstream_directory
        self._known_specs: dict[str, UpstreamSpec] | None = None
        self._known_granted: Granted | None = None
        self._background: set[asyncio.Task] = set()

    async def specs(self) -> dict[str, UpstreamSpec]:
        """The enabled upstreams (cached by the directory; a change is noticed here)."""
        specs = await self.directory.specs()
        if specs is not self._known_specs:
            granted = self.directory.granted
            if self._known_specs is not None and (
                specs != self._known_specs or granted != self._known_granted
            ):
                self.listings.version += 1
            self._known_specs, self._known_granted = specs, granted
            retiring = asyncio.create_task(self.pool.retain(set(specs)))
            self._background.add(retiring)
            retiring.add_done_callback(self._background.discard)
        return specs

    def not_connected(self, spec: UpstreamSpec) -> str | None:
        """Why `spec`'s connection has no grant to carry, as of the directory's last load
        (None: it needs none, or has one); says where to connect."""
        grant = spec.grant
        if grant is None or (grant.upstream_id, grant.holder) in self.directory.granted:
            return None
        if grant.mode == "member" and grant.member is None:
            why = "each member connects it, and this client belongs to no member"
        elif grant.mode == "member":
            why = "this client's member has not connected it yet"
        else:
            why = "nobody has connected it for the team yet"
        return f"{why}; connect it at {connect_url(grant.upstream_id)} to list its tools"

    async def connection(self, upstream: str, member: int | None = None) -> UpstreamConnection:
        """The live connection a client owned by `member` (None: a team client) reaches
        `upstream` through: for an upstream with per-member grants, the member's own.

        Raises:
            UpstreamError: the upstream is no longer configured or enabled.
            GrantRequired: it needs a grant the client's member (or the team) has not got.
        """
        spec = (await self.specs()).get(upstream)
        if spec is None:
            raise UpstreamError(upstream, "unavailable", "no longer configured or enabled")
        spec = spec_for_client(spec, member)
        await require_grant(spec)
        return await self.pool.get(spec)
