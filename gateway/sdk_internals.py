"""Every use of the mcp SDK's private names, in one place.

The SDK offers no public way to do these few things; when it changes, this module is
the one to fix (the gateway's tests fail here first). Everything else calls these.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp.client import stdio as sdk_stdio
from mcp.client._transport import Transport, TransportStreams
from mcp.os.win32.utilities import ServerProcess
from mcp.server import streamable_http
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, create_mcp_http_client

__all__ = [
    "MCP_DEFAULT_SSE_READ_TIMEOUT",
    "STDIO_WRITER_FLUSH_TIMEOUT",
    "ServerProcess",
    "build_event_streams_with",
    "Transport",
    "TransportStreams",
    "connection_of",
    "create_mcp_http_client",
    "default_discover",
    "drain_stdout",
    "hosts_session",
    "spawn_stdio_server",
    "stop_stdio_server",
]

STDIO_WRITER_FLUSH_TIMEOUT: float = sdk_stdio._WRITER_FLUSH_TIMEOUT
"""How long the SDK's stdio shutdown lets the writer flush accepted messages."""


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


async def spawn_stdio_server(
    command: str, args: list[str], env: dict[str, str], errlog: TextIO, cwd: str | Path | None
) -> ServerProcess:
    """Start a stdio server as the SDK's `stdio_client` does: the command resolved for the
    platform, in a process group of its own (a Job Object on Windows), stderr to `errlog`.

    Raises:
        OSError: the process could not be started.
    """
    resolved = await sdk_stdio._get_executable_command(command)
    return await sdk_stdio._create_platform_compatible_process(
        command=resolved, args=args, env=env, errlog=errlog, cwd=cwd
    )


async def drain_stdout(process: ServerProcess) -> None:
    """Read and drop the rest of the server's stdout until shutdown closes it (shielded), so
    a server stuck writing can read its stdin and exit."""
    await sdk_stdio._drain_stdout(process)


async def stop_stdio_server(process: ServerProcess) -> None:
    """The SDK's stop of a stdio server: close stdin, wait, then end its whole process tree
    (SIGTERM, then SIGKILL), each wait bounded."""
    await sdk_stdio._stop_server_process(process)
