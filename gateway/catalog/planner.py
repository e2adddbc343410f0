"""Each client's catalog, merged from the listings and planned, cached per catalog version."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from gateway.catalog.listings import Listings
from gateway.catalog.merged import MergedCatalog, instructions_text, merge, plan_for
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.catalog.view import CatalogView
from gateway.sessions.identity import ClientIdentity
from gateway.sessions.index import catalog_template
from gateway.upstream_config.enabled import EnabledUpstreams
from gateway.upstream_config.grants import spec_for_client
from gateway.upstreams import UpstreamSpec
from indexing.api.catalog_plan import CatalogPlan
from indexing.api.session_store import CatalogTemplate

PLAN_CACHE_SIZE = 64  # (client, catalog version) pairs; each holds an indexed catalog


@dataclass(frozen=True)
class PlannedCatalog:
    """One client's catalog at one listing version: merged, planned, and its index."""

    version: int
    catalog: MergedCatalog
    plan: CatalogPlan | None
    template: CatalogTemplate


class CatalogPlanner:
    """Computes a client's catalog once per catalog version, off the event loop; the
    client's sessions share it."""

    def __init__(self, upstreams: EnabledUpstreams, listings: Listings) -> None:
        self.upstreams = upstreams
        self.listings = listings
        self._plans: dict[tuple, tuple[MergedCatalog, CatalogPlan | None, CatalogTemplate]] = {}

    async def current_version(self) -> int:
        """The listing version, after noticing upstreams added, changed or removed."""
        await self.upstreams.specs()
        return self.listings.version

    async def planned(self, identity: ClientIdentity) -> PlannedCatalog:
        """The client's catalog at the current listing version."""
        specs = await self.upstreams.specs()
        wanted = [
            spec_for_client(s, identity.owner_id)
            for n, s in specs.items()
            if identity.may_use_upstream(n)
        ]
        listings = await self._listings(wanted)
        version = self.listings.version
        key = (version, identity.key, tuple(sorted(s.name for s in wanted)))
        planned = self._plans.get(key)
        if planned is None:

            def build() -> tuple[MergedCatalog, CatalogPlan | None, CatalogTemplate]:
                catalog = merge(identity, listings)
                return catalog, plan_for(identity, catalog), catalog_template()

            planned = await asyncio.to_thread(build)
            if len(self._plans) >= PLAN_CACHE_SIZE:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = planned
            complete = not any(listing.pending for listing in listings.values())
            if complete and identity.settings.vector_search:
                # every upstream joined or given up on: embed this version now, once
                catalog, plan, template = planned
                if documents := CatalogView(catalog, plan).documents():
                    template.ready_vectors(documents)
        return PlannedCatalog(version, *planned)

    async def _listings(self, specs: list[UpstreamSpec]) -> dict[str, UpstreamListing]:
        """The listings of these upstreams as the client reaches them.

        An upstream with OAuth grants is listed through a connection carrying a grant,
        once per worker (a hosted server's tools are the same for every member: they
        describe the server). A client whose member (or team) has not connected it sees
        what is known of it (its calls then ask to connect), or, when nothing is, the
        upstream as unavailable with the link to connect: its connection is not started."""
        missing = {s.name: why for s in specs if (why := self.upstreams.not_connected(s))}
        listings = await self.listings.get([s for s in specs if s.name not in missing])
        for spec in specs:
            if spec.name in missing:
                known = self.listings.known(spec)
                listings[spec.name] = known or UpstreamListing(spec=spec, error=missing[spec.name])
        return listings

    async def instructions_for(self, identity: ClientIdentity) -> str:
        """The `initialize` instructions for a client: its upstreams and theirs."""
        planned = await self.planned(identity)
        return instructions_text(planned.catalog, planned.plan)
