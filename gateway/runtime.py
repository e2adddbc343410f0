"""The gateway of this worker process: its collaborators, put together and shut down.

Created lazily on the first /mcp request (daphne sends no lifespan events) and shut
down by `aclose()`, which daphne's reactor calls before it stops.

Who does what (the path of one request is in docs/architecture.md):
- `EnabledUpstreams`: the configured upstreams and their pooled connections;
- `Listings`: what each upstream offers; `CatalogPlanner`: each client's catalog;
- `SessionRegistry`: the live gateway sessions and their idle sweeper;
- `NotificationFanOut`: list changes and log messages from upstreams to clients;
- `CallerRegistry`: requests upstreams send back (sampling, elicitation, roots);
- `McpHost`: the SDK's Streamable HTTP session manager around the `GatewayServer`.
"""

from __future__ import annotations

import asyncio
import logging

import mcp_types as types
from django.conf import settings

from gateway.catalog.listing_record import record_listing
from gateway.catalog.listings import Listings
from gateway.catalog.planner import CatalogPlanner
from gateway.guardrails.pinning import hold_unapproved
from gateway.http.forwarding import Forwarding
from gateway.http.host import McpHost
from gateway.http.inflight import InFlightRequests
from gateway.operations import tracing
from gateway.operations.build import build_call_monitor
from gateway.sessions.identity import ClientIdentity
from gateway.sessions.list_change_bus import ListChangeBus
from gateway.sessions.notifications import NotificationFanOut, named_log
from gateway.sessions.records import SessionRecorder
from gateway.sessions.registry import SessionRegistry, current_client
from gateway.sessions.reverse_requests import CallerRegistry
from gateway.sessions.server import GatewayServer, build_server
from gateway.sessions.session import SessionServices
from gateway.upstream_config.enabled import EnabledUpstreams
from gateway.upstream_config.grants import bearer_for
from gateway.upstreams import UpstreamPool, split_caller_route

__all__ = ["Gateway", "current_client", "get_gateway", "running_gateway"]

logger = logging.getLogger(__name__)


class Gateway:
    """Everything one worker needs to serve MCP clients through its upstreams."""

    def __init__(self) -> None:
        tracing.start()
        self.callers = CallerRegistry()
        self.list_changes = ListChangeBus()
        self.recorder = SessionRecorder()
        self.inflight = InFlightRequests()
        self.forwarding = Forwarding() if settings.REDIS_URL else None
        self.loop = _running_loop()  # the first /mcp request's (None: built by a test)
        # Upstreams call back into the fan-out, which needs the sessions: bound late.
        hooks = self.callers.hooks(
            on_list_changed=lambda upstream, kind: self.notifications.on_list_changed(
                upstream, kind
            ),
            on_log=self._pass_log,
        )
        self.pool = UpstreamPool(hooks=hooks, bearer_for=bearer_for)
        self.listings = Listings(
            self.pool,
            budget=settings.UPSTREAM_START_BUDGET,
            on_late=lambda upstream, listing: self.notifications.on_late_upstream(
                upstream, listing
            ),
            on_read=record_listing,
            guard=hold_unapproved,
        )
        self.upstreams = EnabledUpstreams(self.pool, self.listings)
        self.catalogs = CatalogPlanner(self.upstreams, self.listings)
        self.monitor = build_call_monitor()
        services = SessionServices(
            catalogs=self.catalogs,
            upstreams=self.upstreams,
            callers=self.callers,
            recorder=self.recorder,
            list_changes=self.list_changes,
            monitor=self.monitor,
        )
        self.sessions = SessionRegistry(services, self.forwarding)
        self.notifications = NotificationFanOut(self.sessions, self.listings, self.list_changes)
        self.server: GatewayServer = build_server(self.sessions, self.list_changes)
        self.host = McpHost(
            self.server,
            idle_timeout=settings.MCP_SESSION_IDLE_TIMEOUT,
            max_body_bytes=settings.MCP_MAX_BODY_BYTES,
            worker_route=settings.WORKER_ROUTE,
        )

    async def _pass_log(self, route: str, params: types.LoggingMessageNotificationParams) -> None:
        """An upstream's log message: to the handshake-era sessions that use it, and to the
        2026-07-28 calls in flight to it (on their response streams); from a connection
        carrying a member's grant, only to that member's (`route`: `caller_route`)."""
        upstream, member = split_caller_route(route)
        await self.notifications.on_log(upstream, params, member=member)
        await self.callers.log_to_calls(route, named_log(upstream, params))

    def definitions_approved(self, upstream: str) -> None:
        """From another thread (the admin's): read the upstream's listing again, so what was
        approved joins the catalogs, and tell the clients that use it."""
        if self.loop is not None:
            asyncio.run_coroutine_threadsafe(
                self.notifications.on_list_changed(upstream, "tools"), self.loop
            )

    async def instructions_for_identity(self, identity: ClientIdentity) -> str:
        """The `initialize` instructions for a client (set before the SDK answers)."""
        return await self.catalogs.instructions_for(identity)

    async def aclose(self) -> None:
        """Let running requests finish (within the grace period), then end every session,
        stop upstream processes and write pending records."""
        grace = settings.MCP_SHUTDOWN_GRACE_SECONDS
        if self.forwarding is not None:
            # At once: the other workers stop forwarding here and treat its sessions as gone.
            await self.forwarding.withdraw()
        unfinished = await self.inflight.close(grace)
        if unfinished:
            logger.warning(
                "%d request(s) still running after %g s are cancelled", unfinished, grace
            )
        self.sessions.stop_sweeping()
        await self.host.aclose()
        await self.listings.aclose()
        await self.sessions.aclose()
        await self.pool.aclose()
        await self.monitor.aclose()  # after the sessions: their last calls are counted too
        await self.recorder.aclose()
        if self.forwarding is not None:
            await self.forwarding.aclose()
        await tracing.flush()


_gateway: Gateway | None = None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


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
