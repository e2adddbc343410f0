"""The MCP host: the SDK's Streamable HTTP session manager, started lazily, stopped by us.

Daphne sends no ASGI lifespan events, so the session manager (which needs a
long-lived task group) is started on the first /mcp request in a background
task of its own and stopped by `McpHost.aclose()`.
"""

from __future__ import annotations

import asyncio
import functools
import logging

from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import RequestId
from starlette.types import Receive, Scope, Send

from gateway.http import event_stream
from gateway.http.session_ids import routed_session_id
from gateway.operations import tracing
from gateway.seams.mcp_sdk_seam import hosts_session, use_event_stream_response, use_session_ids

logger = logging.getLogger(__name__)


class McpHost:
    """Owns one SDK session manager for the gateway server in this worker process."""

    def __init__(
        self,
        server: Server,
        *,
        idle_timeout: float,
        max_body_bytes: int,
        worker_route: str = "",
    ) -> None:
        self._manager = StreamableHTTPSessionManager(
            app=server,
            # Host and Origin are checked by the consumer, before authentication.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            session_idle_timeout=idle_timeout,
            max_request_body_size=max_body_bytes,
        )
        use_event_stream_response(event_stream.event_source_response)
        if worker_route:
            use_session_ids(functools.partial(routed_session_id, worker_route))
        self._started: asyncio.Event | None = None
        self._stop = asyncio.Event()
        self._runner: asyncio.Task | None = None

    async def handle(
        self, scope: Scope, receive: Receive, send: Send, *, request_id: RequestId | None = None
    ) -> None:
        """Serve one /mcp HTTP exchange through the SDK (`request_id`: a POSTed request's)."""
        await self._ensure_started()
        serving = event_stream.serving(request_id)
        with serving, tracing.continued_from_headers(scope["headers"]):
            await self._manager.handle_request(scope, receive, send)

    def owns(self, session_id: str) -> bool:
        """Whether the session lives in this worker."""
        return hosts_session(self._manager, session_id)

    async def _ensure_started(self) -> None:
        if self._started is None:
            self._started = asyncio.Event()
            self._runner = asyncio.create_task(self._run(), name="mcp-session-manager")
        await self._started.wait()

    async def _run(self) -> None:
        assert self._started is not None
        async with self._manager.run():
            self._started.set()
            await self._stop.wait()

    async def aclose(self) -> None:
        """End every session and stop the session manager."""
        self._stop.set()
        if self._runner is not None:
            await self._runner
