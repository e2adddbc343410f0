"""What each upstream offers (tools, resources, templates, prompts, instructions), cached.

One listing per upstream per worker, shared by every session; refreshed when the
upstream says its lists changed. A failed listing is remembered with its error and
retried after a while, so one broken upstream never blocks the others.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field

import anyio
import mcp_types as types

from gateway.listing_reads import LateFn, ListingReads
from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamPool, UpstreamSpec

logger = logging.getLogger(__name__)
RETRY_FAILED_AFTER = 15.0
PENDING = "still starting; its tools join the session when it is ready"


@dataclass
class UpstreamListing:
    """One upstream's catalog, or the error that kept us from reading it."""

    spec: UpstreamSpec
    tools: list[types.Tool] = field(default_factory=list)
    resources: list[types.Resource] = field(default_factory=list)
    templates: list[types.ResourceTemplate] = field(default_factory=list)
    prompts: list[types.Prompt] = field(default_factory=list)
    instructions: str | None = None
    title: str | None = None
    error: str | None = None
    pending: bool = False
    read_at: float = field(default_factory=time.monotonic)

    @property
    def stale(self) -> bool:
        return self.error is not None and time.monotonic() - self.read_at > RETRY_FAILED_AFTER


async def read_listing(connection: UpstreamConnection) -> UpstreamListing:
    """Start the upstream if needed and read everything it declares."""
    spec = connection.spec
    try:
        await connection.start()
        caps = connection.capabilities or types.ServerCapabilities()
        listing = UpstreamListing(spec=spec, instructions=connection.instructions)
        info = connection.server_info
        listing.title = (info.title or info.name) if info else None
        if caps.tools is not None:
            listing.tools = await connection.list_tools()
        if caps.resources is not None:
            listing.resources = await connection.list_resources()
            listing.templates = await connection.list_resource_templates()
        if caps.prompts is not None:
            listing.prompts = await connection.list_prompts()
        return listing
    except UpstreamError as error:
        logger.warning("upstream %r is unavailable: %s", spec.name, error)
        return UpstreamListing(spec=spec, error=str(error))


class Listings:
    """Per-upstream listings for this worker, read on first need and after changes."""

    def __init__(
        self, pool: UpstreamPool, *, budget: float = math.inf, on_late: LateFn | None = None
    ) -> None:
        self.pool = pool
        self.budget = budget
        self._listings: dict[str, UpstreamListing] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._reads = ListingReads(self._one, on_late)
        self.version = 0

    async def get(self, specs: list[UpstreamSpec]) -> dict[str, UpstreamListing]:
        """The listings of these upstreams, read concurrently; one not read within the start
        budget is `pending` (announced through `on_late` when it arrives)."""
        found = await self._reads.within(specs, self.budget, self._cached)
        return {
            spec.name: found[spec.name] or UpstreamListing(spec=spec, error=PENDING, pending=True)
            for spec in specs
        }

    def _cached(self, spec: UpstreamSpec) -> UpstreamListing | None:
        listing = self._listings.get(spec.name)
        return listing if listing is not None and listing.spec == spec else None

    async def _one(self, spec: UpstreamSpec) -> UpstreamListing:
        lock = self._locks.setdefault(spec.name, anyio.Lock())
        async with lock:
            connection = await self.pool.get(spec)
            listing = self._cached(spec)
            if listing is None or listing.stale:
                listing = await read_listing(connection)
                self._listings[spec.name] = listing
                self.version += 1
            return listing

    async def refresh(self, name: str) -> UpstreamListing | None:
        """Re-read one upstream after it announced a change."""
        listing = self._listings.get(name)
        if listing is None:
            return None
        lock = self._locks.setdefault(name, anyio.Lock())
        async with lock:
            fresh = await read_listing(await self.pool.get(listing.spec))
            self._listings[name] = fresh
            self.version += 1
            return fresh

    def read_so_far(self) -> dict[str, UpstreamListing]:
        """The listings read in this worker (none is started or re-read by asking)."""
        return dict(self._listings)

    def summary(self) -> dict[str, tuple[str | None, int]]:
        """upstream -> (last error or None, tool count) for the upstreams read or being read."""
        summary = {name: (item.error, len(item.tools)) for name, item in self._listings.items()}
        for name in self._reads.names():
            summary.setdefault(name, (PENDING, 0))
        return summary

    async def aclose(self) -> None:
        """Stop the reads in flight."""
        await self._reads.aclose()
