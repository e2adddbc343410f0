"""The gateway of this worker process: upstream pool, listings, live sessions, MCP host.

Created lazily on the first /mcp request (daphne sends no lifespan events) and shut
down by `shutdown()`, which daphne's reactor calls before it stops.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from contextvars import ContextVar

from django.conf import settings
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.catalog import MergedCatalog, instructions_text, merge, plan_for
from gateway.directory import directory
from gateway.forwarding import Forwarding
from gateway.host import McpHost
from gateway.identity import ClientIdentity
from gateway.inflight import InFlightRequests
from gateway.listing_record import record_listing
from gateway.listings import Listings, UpstreamListing
from gateway.records import SessionRecorder
from gateway.reverse_requests import CallerRegistry
from gateway.server import build_server
from gateway.session import GatewaySession, expiry_check_seconds
from gateway.session_index import CatalogTemplate
from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamPool, UpstreamSpec
from indexing.catalog_plan import CatalogPlan

logger = logging.getLogger(__name__)

current_client: ContextVar[ClientIdentity | None] = ContextVar("current_client", default=None)
SESSION_STATE_KEY = "localrouter.session"
PLAN_CACHE_SIZE = 64  # (client, catalog version) pairs; each holds an indexed catalog
EVENTS = {
    "tools": ToolsListChanged(),
    "resources": ResourcesListChanged(),
    "prompts": PromptsListChanged(),
}


class Gateway:
    """Everything one worker needs to serve MCP clients through its upstreams."""

    def __init__(self) -> None:
        self.callers = CallerRegistry()
        hooks = self.callers.hooks(on_list_changed=self._on_list_changed, on_log=self._on_log)
        self.pool = UpstreamPool(hooks=hooks)
        self.listings = Listings(
            self.pool,
            budget=settings.UPSTREAM_START_BUDGET,
            on_late=self._on_late_upstream,
            on_read=record_listing,
        )
        self.directory = directory
        self.sessions: dict[str, GatewaySession] = {}
        self.inflight = InFlightRequests()
        self.recorder = SessionRecorder()
        self.bus = InMemorySubscriptionBus()
        self._sweeper: asyncio.Task | None = None
        self._known_specs: dict[str, UpstreamSpec] | None = None
        self._background: set[asyncio.Task] = set()
        self.forwarding = Forwarding() if settings.REDIS_URL else None
        self._plans: dict[tuple, tuple[MergedCatalog, CatalogPlan | None, CatalogTemplate]] = {}
        self.server = build_server(self, self.bus)
        self.host = McpHost(
            self.server,
            idle_timeout=settings.MCP_SESSION_IDLE_TIMEOUT,
            max_body_bytes=settings.MCP_MAX_BODY_BYTES,
        )

    async def specs(self) -> dict[str, UpstreamSpec]:
        """The enabled upstreams. When they change, catalogs are recomputed and a deleted or
        disabled upstream's process is stopped."""
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

    async def planned_catalog(
        self, identity: ClientIdentity
    ) -> tuple[int, MergedCatalog, CatalogPlan | None, CatalogTemplate]:
        """(listing version, merged catalog, plan, indexed catalog) for a client.

        Computed once per client and catalog version, off the event loop, and shared by
        the client's sessions.
        """
        specs = await self.specs()
        wanted = [s for n, s in specs.items() if identity.may_use_upstream(n)]
        listings = await self.listings.get(wanted)
        version = self.listings.version
        key = (version, identity.key, tuple(sorted(s.name for s in wanted)))
        planned = self._plans.get(key)
        if planned is None:

            def build() -> tuple[MergedCatalog, CatalogPlan | None, CatalogTemplate]:
                catalog = merge(identity, listings)
                return catalog, plan_for(identity, catalog), CatalogTemplate()

            planned = await asyncio.to_thread(build)
            if len(self._plans) >= PLAN_CACHE_SIZE:
                self._plans.pop(next(iter(self._plans)))
            self._plans[key] = planned
        return version, *planned

    async def instructions_for_identity(self, identity: ClientIdentity) -> str:
        _, catalog, plan, _ = await self.planned_catalog(identity)
        return instructions_text(catalog, plan)

    async def instructions_for(self, ctx) -> str:
        view = await (await self.session_for(ctx)).view()
        return instructions_text(view.catalog, view.plan)

    async def session_for(self, ctx) -> GatewaySession:
        """The gateway session behind an SDK request context, created on first use."""
        connection = ctx.session._connection  # the SDK keeps per-connection state here
        session = connection.state.get(SESSION_STATE_KEY)
        if session is None:
            session = self._new_session(ctx, connection)
            connection.state[SESSION_STATE_KEY] = session
        session.touch()
        return session

    def _new_session(self, ctx, connection) -> GatewaySession:
        identity = current_client.get()
        if identity is None:
            raise RuntimeError("no authenticated client for this MCP request")
        stateless = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if stateless:
            # 2026-07-28: no sessions; one gateway session per client, kept while active.
            key = f"client-{identity.id}"
            session = self.sessions.get(key)
            if session is not None and not session.closed:
                return session
        else:
            key = connection.session_id or uuid.uuid4().hex
        session = GatewaySession(self, identity, key=key, protocol_version=ctx.protocol_version)
        params = ctx.session.client_params
        if params is not None:
            session.client_name = params.client_info.name
            session.client_version = params.client_info.version
        if not stateless:
            session.connection = connection
            connection.exit_stack.push_async_callback(session.aclose)
        self.sessions[key] = session
        self.recorder.changed(session)
        if stateless and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._expire_idle_clients(), name="expire-clients")
        logger.info(
            "session %s started for client %r (%s)", key[:8], identity.name, ctx.protocol_version
        )
        return session

    async def _expire_idle_clients(self) -> None:
        """End 2026-07-28 clients' gateway sessions (and their stores) once they go idle."""
        timeout = settings.MCP_SESSION_IDLE_TIMEOUT
        while True:
            await asyncio.sleep(expiry_check_seconds(timeout))
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.connection is None and now - session.last_activity > timeout:
                    await session.aclose()

    async def session_ended(self, session: GatewaySession) -> None:
        self.sessions.pop(session.key, None)
        if self.forwarding is not None and self.forwarding.channel is not None:
            await self.forwarding.directory.release(session.key, self.forwarding.channel)
        self.recorder.changed(session, ended=True)
        logger.info("session %s ended after %d call(s)", session.key[:8], session.stats.call_count)

    async def _on_list_changed(self, upstream: str, kind: str) -> None:
        await self.listings.refresh(upstream)
        await self._announce(upstream, kind)

    async def _on_late_upstream(self, upstream: str, listing: UpstreamListing) -> None:
        """An upstream that missed the start budget is ready: its lists join the sessions."""
        await self._announce(upstream, "tools")
        if listing.resources or listing.templates:
            await self._announce(upstream, "resources")
        if listing.prompts:
            await self._announce(upstream, "prompts")

    async def _announce(self, upstream: str, kind: str) -> None:
        for session in list(self.sessions.values()):
            if session.connection is not None and session.sees_upstream(upstream):
                await session.notify_list_changed(kind)
        await self.publish_list_changed(kind)

    async def publish_list_changed(self, kind: str) -> None:
        """Tell 2026-07-28 listeners a list changed (they refetch; nothing else leaks)."""
        await self.bus.publish(EVENTS[kind])

    async def _on_log(self, upstream: str, params) -> None:
        """Pass an upstream's log message on to the sessions that use it."""
        message = params.model_copy(update={"logger": f"{upstream}/{params.logger or upstream}"})
        data = message.model_dump(by_alias=True, mode="json", exclude_none=True)
        for session in list(self.sessions.values()):
            if session.connection is not None and session.sees_upstream(upstream):
                await session.connection.notify("notifications/message", data)
        await self.callers.log_to_calls(upstream, message)

    async def aclose(self) -> None:
        """Let running requests finish (within the grace period), then end every session,
        stop upstream processes and write pending records."""
        grace = settings.MCP_SHUTDOWN_GRACE_SECONDS
        unfinished = await self.inflight.close(grace)
        if unfinished:
            logger.warning(
                "%d request(s) still running after %g s are cancelled", unfinished, grace
            )
        if self._sweeper is not None:
            self._sweeper.cancel()
        await self.host.aclose()
        await self.listings.aclose()
        for session in list(self.sessions.values()):
            await session.aclose()
        await self.pool.aclose()
        await self.recorder.aclose()
        if self.forwarding is not None:
            await self.forwarding.aclose()


_gateway: Gateway | None = None


def running_gateway() -> Gateway | None:
    """This worker's gateway if one was started (the admin asks without starting one)."""
    return _gateway


def get_gateway() -> Gateway:
    """This worker's gateway, created on first use."""
    global _gateway
    if _gateway is None:
        _gateway = Gateway()
        _stop_with_reactor(_gateway)
    return _gateway


def _stop_with_reactor(gateway: Gateway) -> None:
    """Under daphne, close the gateway (and its child processes) before the reactor stops."""
    try:
        from twisted.internet import defer, reactor
    except ImportError:  # pragma: no cover - twisted is a daphne dependency
        return
    if not reactor.running:
        return
    reactor.addSystemEventTrigger(
        "before",
        "shutdown",
        lambda: defer.Deferred.fromFuture(asyncio.ensure_future(gateway.aclose())),
    )
