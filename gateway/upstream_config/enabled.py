"""The enabled upstreams and their live connections, as the request path reaches them."""

from __future__ import annotations

import asyncio

from gateway.catalog.listings import Listings
from gateway.upstream_config.directory import UpstreamDirectory, directory
from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamPool, UpstreamSpec


class EnabledUpstreams:
    """name -> spec of every enabled upstream, and the pooled connection to each.

    When the configuration changes, the listings' version moves on (catalogs are
    recomputed) and a deleted or disabled upstream's process is stopped.
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
        self._background: set[asyncio.Task] = set()

    async def specs(self) -> dict[str, UpstreamSpec]:
        """The enabled upstreams (cached by the directory; a change is noticed here)."""
        specs = await self.directory.specs()
        if specs is not self._known_specs:
            if self._known_specs is not None and specs != self._known_specs:
                self.listings.version += 1
            self._known_specs = specs
            retiring = asyncio.create_task(self.pool.retain(set(specs)))
            self._background.add(retiring)
            retiring.add_done_callback(self._background.discard)
        return specs

    async def connection(self, upstream: str) -> UpstreamConnection:
        """The live connection to an enabled upstream.

        Raises:
            UpstreamError: the upstream is no longer configured or enabled.
        """
        spec = (await self.specs()).get(upstream)
        if spec is None:
            raise UpstreamError(upstream, "unavailable", "no longer configured or enabled")
        return await self.pool.get(spec)
