"""Every use of the mcp SDK's private names, in one place.

The SDK offers no public way to do these few things; when it changes, this module is
the one to fix (the gateway's tests fail here first). Everything else calls these.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.client._transport import Transport, TransportStreams
from mcp.server import streamable_http
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, create_mcp_http_client

__all__ = [
    "MCP_DEFAULT_SSE_READ_TIMEOUT",
    "build_event_streams_with",
    "Transport",
    "TransportStreams",
    "connection_of",
    "create_mcp_http_client",
    "default_discover",
    "hosts_session",
]


def connection_of(ctx: Any) -> Connection:
    """The SDK connection behind a server request context: per-connection state (`state`,
    `exit_stack`, `session_id`) and the standalone channel for notifications."""
    return ctx.session._connection


async def default_discover(
    server: Server, ctx: Any, params: types.RequestParams | None
) -> types.DiscoverResult:
    """The SDK's own `server/discover` answer (capabilities, versions), to amend."""
    return await server._handle_discover(ctx, params)


def hosts_session(manager: StreamableHTTPSessionManager, session_id: str) -> bool:
    """Whether the session manager holds a live Streamable HTTP session with this id."""
    return session_id in manager._server_instances


def build_event_streams_with(factory: Any) -> None:
    """Have the SDK's Streamable HTTP transport build its SSE responses (request POSTs, the
    GET stream) with `factory`, called as it calls sse-starlette's `EventSourceResponse`."""
    streamable_http.EventSourceResponse = factory
