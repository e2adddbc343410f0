"""This worker's gateway sessions: found or created per request, expired when idle."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from mcp.server.connection import Connection
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.http.forwarding import Forwarding
from gateway.operations.metrics import families as metrics
from gateway.seams.mcp_sdk_seam import connection_of
from gateway.sessions.identity import ClientIdentity
from gateway.sessions.session import GatewaySession, SessionServices, expiry_check_seconds

logger = logging.getLogger(__name__)

current_client: ContextVar[ClientIdentity | None] = ContextVar("current_client", default=None)
"""The client authenticated for the request being served (set by the exchange)."""
SESSION_STATE_KEY = "localrouter.session"


def client_key(identity: ClientIdentity) -> str:
    """The key of a 2026-07-28 client's one gateway session (and of its owner in Redis)."""
    return f"client-{identity.id}"


class SessionRegistry:
    """The live gateway sessions of this worker, by key.

    A handshake-era session lives as long as its SDK connection; a 2026-07-28 client (no
    sessions) gets one gateway session, ended by the idle sweeper once it goes quiet.
    """

    def __init__(self, services: SessionServices, forwarding: Forwarding | None) -> None:
        self.services = services
        self.forwarding = forwarding
        self._sessions: dict[str, GatewaySession] = {}
        self._sweeper: asyncio.Task | None = None

    def live(self) -> list[GatewaySession]:
        """Every session of this worker, oldest first."""
        return list(self._sessions.values())

    def by_record(self, record_id: str) -> GatewaySession | None:
        """The open session whose record is `record_id` (None once it is closing)."""
        for session in self.live():
            if session.record_id == record_id and not session.closed:
                return session
        return None

    def connected_using(self, upstream: str) -> list[GatewaySession]:
        """The sessions with a connection to notify whose catalog includes `upstream`."""
        return [
            session
            for session in self.live()
            if session.connection is not None and session.sees_upstream(upstream)
        ]

    def session_for(self, ctx: Any) -> GatewaySession:
        """The gateway session behind an SDK request context, created on first use."""
        connection = connection_of(ctx)
        session = connection.state.get(SESSION_STATE_KEY)
        if session is None:
            session = self._new_session(ctx, connection)
            connection.state[SESSION_STATE_KEY] = session
        session.touch()
        return session

    def tool_input_schema(self, name: str) -> Mapping[str, Any] | None:
        """For the SDK's check of a 2026-07-28 `tools/call`'s `Mcp-Param-*` headers: the tool's
        input schema as its client last listed it. Without this the SDK runs the whole
        `tools/list` handler for every call to find it. None (the check is skipped, as the SDK
        does for a tool it cannot find) before the client's first request."""
        identity = current_client.get()
        session = self._sessions.get(client_key(identity)) if identity is not None else None
        return session.listed_input_schema(name) if session is not None else None

    def _new_session(self, ctx: Any, connection: Connection) -> GatewaySession:
        identity = current_client.get()
        if identity is None:
            raise RuntimeError("no authenticated client for this MCP request")
        stateless = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if stateless:
            # 2026-07-28: no sessions; one gateway session per client, kept while active.
            key = client_key(identity)
            session = self._sessions.get(key)
            if session is not None and not session.closed:
                return session
        else:
            key = connection.session_id or uuid.uuid4().hex
        session = GatewaySession(
            self.services,
            identity,
            key=key,
            protocol_version=ctx.protocol_version,
            on_closed=self._ended,
        )
        params = ctx.session.client_params
        if params is not None:
            session.client_name = params.client_info.name
            session.client_version = params.client_info.version
        if not stateless:
            session.connection = connection
            connection.exit_stack.push_async_callback(session.aclose)
        self._sessions[key] = session
        metrics.session_started()
        self.services.recorder.changed(session)
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
            for session in self.live():
                if session.connection is None and now - session.last_activity > timeout:
                    await session.aclose()

    async def _ended(self, session: GatewaySession) -> None:
        self._sessions.pop(session.key, None)
        metrics.session_ended()
        if self.forwarding is not None and self.forwarding.channel is not None:
            await self.forwarding.directory.release(session.key, self.forwarding.channel)
        self.services.recorder.changed(session, ended=True)
        logger.info("session %s ended after %d call(s)", session.key[:8], session.stats.call_count)

    def stop_sweeping(self) -> None:
        """No more idle checks (shutdown)."""
        if self._sweeper is not None:
            self._sweeper.cancel()

    async def aclose(self) -> None:
        """End every session."""
        self.stop_sweeping()
        for session in self.live():
            await session.aclose()
