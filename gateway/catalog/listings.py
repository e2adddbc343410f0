"""What each upstream offers (tools, resources, templates, prompts, instructions), cached.

One listing per upstream per worker, shared by every session; refreshed when the
upstream says its lists changed. Each list is read on its own: `Method not found` or an
undeclared capability means "none of this kind", any other error is remembered for that
list only. A failed start or list is retried after a while, so one broken upstream (or
list) never blocks the others. Every listing read passes `guard` (the gateway's is
`gateway.guardrails.pinning.hold_unapproved`), which may leave out what must not be served.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable

import anyio
import mcp_types as types
from mcp_types import METHOD_NOT_FOUND

from gateway.catalog.listing_reads import LateFn, ListingReads
from gateway.catalog.tool_quirks import first_of_each_name
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.upstreams import (
    BearerSource,
    UpstreamConnection,
    UpstreamError,
    UpstreamPool,
    UpstreamSpec,
)

logger = logging.getLogger(__name__)
PENDING = "still starting; its tools join the session when it is ready"


LIST_METHODS = {
    "tools": "tools/list",
    "prompts": "prompts/list",
    "resources": "resources/list",
    "templates": "resources/templates/list",
}
"""Each kind of list an upstream may offer, and the method that reads it."""


async def read_listing(connection: UpstreamConnection) -> UpstreamListing:
    """Start the upstream if needed and read every list it declares, each on its own."""
    spec = connection.spec
    try:
        await connection.start()
    except UpstreamError as error:
        logger.warning("upstream %r is unavailable: %s", spec.name, error.message)
        return UpstreamListing(spec=spec, error=str(error))
    caps = connection.capabilities or types.ServerCapabilities()
    info = connection.server_info
    listing = UpstreamListing(
        spec=spec,
        instructions=connection.instructions,
        title=(info.title or info.name) if info else None,
    )
    readers = {
        "tools": (caps.tools, connection.list_tools),
        "prompts": (caps.prompts, connection.list_prompts),
        "resources": (caps.resources, connection.list_resources),
        "templates": (caps.resources, connection.list_resource_templates),
    }
    for kind, (declared, read) in readers.items():
        if declared is None:
            continue  # not declared: none of this kind
        try:
            setattr(listing, kind, await read())
        except UpstreamError as error:
            if error.kind == "rejected" and error.code == METHOD_NOT_FOUND:
                continue  # declared but not implemented: none of this kind
            method = LIST_METHODS[kind]
            listing.failed[method] = error.message
            logger.warning("upstream %r: %s failed: %s", spec.name, method, error.message)
    listing.tools = first_of_each_name(spec.name, listing.tools)
    return listing


class Listings:
    """Per-upstream listings for this worker, read on first need and after changes."""

    def __init__(
        self,
        pool: UpstreamPool,
        *,
        budget: float = math.inf,
        on_late: LateFn | None = None,
        on_read: Callable[[UpstreamListing], Awaitable[None]] | None = None,
        guard: Callable[[UpstreamListing], Awaitable[UpstreamListing]] | None = None,
    ) -> None:
        self.pool = pool
        self.budget = budget
        self.on_read = on_read
        self.guard = guard
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

    def known(self, spec: UpstreamSpec) -> UpstreamListing | None:
        """The listing of `spec` read so far, if it was read without an error (none is
        started: for an upstream this client cannot start, e.g. lacking a grant)."""
        listing = self._cached(spec)
        return listing if listing is not None and listing.error is None else None

    async def _one(self, spec: UpstreamSpec) -> UpstreamListing:
        lock = self._locks.setdefault(spec.name, anyio.Lock())
        async with lock:
            connection = await self.pool.get(spec)
            listing = self._cached(spec)
            if listing is None or listing.stale:
                listing = await self._read(connection)
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
            fresh = await self._read(await self.pool.get(listing.spec))
            self._listings[name] = fresh
            self.version += 1
            return fresh

    async def _read(self, connection: UpstreamConnection) -> UpstreamListing:
        listing = await read_listing(connection)
        if self.guard is not None:
            listing = await self.guard(listing)
        if self.on_read is not None:
            await self.on_read(listing)
        return listing

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


async def upstream_probe(spec: UpstreamSpec, bearer: BearerSource | None = None) -> UpstreamListing:
    """Start the upstream, read every list it declares, ping it and stop it again (its HTTP
    requests carrying `bearer`'s token, for an upstream with OAuth grants)."""
    connection = UpstreamConnection(spec, bearer=bearer)
    try:
        listing = await read_listing(connection)
        if listing.error is None:
            await connection.ping()  # a cheap call on the same session: it keeps answering
        return listing
    finally:
        await connection.aclose()
