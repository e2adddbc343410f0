"""The seam to the `mcp` SDK: every use of its private names, in one place.

The SDK offers no public way to do these few things (docs/architecture.md, Seams to
libraries, says why each is needed). Everything else in the gateway calls these functions;
each runs `check()` on first use, so an SDK release that drops or renames one of the names
fails here, with a `SeamBroken` error naming this module, the SDK's version and the name.
pyproject.toml pins the SDK to the minor series these were checked against.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp.client import Transport
from mcp.client import stdio as sdk_stdio
from mcp.server import streamable_http, streamable_http_manager
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.session import ServerSession
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from gateway.seams.private_names import PrivateName, broken, verify

SEAM = __name__
LIBRARY = "mcp"

# Names the gateway needs when it is imported (types, constants): a release without them
# fails the import, with the same error naming this seam.
try:
    from mcp.client._transport import TransportStreams
    from mcp.client.stdio import _WRITER_FLUSH_TIMEOUT
    from mcp.os.win32.utilities import ServerProcess
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, create_mcp_http_client
except ImportError as error:  # pragma: no cover - only a different SDK release gets here
    raise broken(SEAM, LIBRARY, f"an import ({error})") from error

__all__ = [
    "MCP_DEFAULT_SSE_READ_TIMEOUT",
    "STDIO_WRITER_FLUSH_TIMEOUT",
    "ServerProcess",
    "Transport",
    "TransportStreams",
    "check",
    "connection_of",
    "create_mcp_http_client",
    "default_discover",
    "drain_stdout",
    "hosts_session",
    "spawn_stdio_server",
    "stop_stdio_server",
    "use_event_stream_response",
    "use_session_ids",
]

STDIO_WRITER_FLUSH_TIMEOUT: float = _WRITER_FLUSH_TIMEOUT
"""How long the SDK's stdio shutdown lets the writer flush accepted messages."""

RELIED_ON = (
    PrivateName(ServerSession, "_connection", on_instances=True),
    PrivateName(Server, "_handle_discover"),
    PrivateName(StreamableHTTPSessionManager, "_server_instances", on_instances=True),
    # Public, but replaced at run time: the session manager must still make a new session's
    # id with `uuid4().hex` through this module attribute.
    PrivateName(streamable_http_manager, "uuid4"),
    # Public, but replaced at run time: the transport must still build its SSE responses
    # through this module attribute.
    PrivateName(streamable_http, "EventSourceResponse"),
    PrivateName(sdk_stdio, "_get_executable_command"),
    PrivateName(sdk_stdio, "_create_platform_compatible_process"),
    PrivateName(sdk_stdio, "_drain_stdout"),
    PrivateName(sdk_stdio, "_stop_server_process"),
)


def check() -> None:
    """Verify that the installed SDK still has every private name this seam uses.

    Raises:
        SeamBroken: one is gone; the message names this module, the SDK's version and it.
    """
    verify(SEAM, LIBRARY, RELIED_ON)


_check_once = functools.cache(check)


def connection_of(ctx: Any) -> Connection:
    """The SDK connection behind a server request context: per-connection state (`state`,
    `exit_stack`, `session_id`) and the standalone channel for notifications.

    Raises:
        SeamBroken: the SDK no longer keeps it where this seam reads it.
    """
    _check_once()
    return ctx.session._connection


async def default_discover(
    server: Server, ctx: Any, params: types.RequestParams | None
) -> types.DiscoverResult:
    """The SDK's own `server/discover` answer (capabilities, versions), to amend.

    Raises:
        SeamBroken: the SDK no longer has its discover handler.
    """
    _check_once()
    return await server._handle_discover(ctx, params)


def hosts_session(manager: StreamableHTTPSessionManager, session_id: str) -> bool:
    """Whether the session manager holds a live Streamable HTTP session with this id.

    Raises:
        SeamBroken: the SDK no longer keeps its sessions where this seam reads them.
    """
    _check_once()
    return session_id in manager._server_instances


# The response class the SDK's transport builds its event streams with (sse-starlette's),
# read before this seam replaces it: what a factory leaves to the SDK is answered with it.
_SDK_EVENT_STREAM_RESPONSE: Callable[..., Any] | None = getattr(
    streamable_http, "EventSourceResponse", None
)


def use_event_stream_response(factory: Callable[..., Any | None]) -> Callable[..., Any]:
    """Have the SDK's Streamable HTTP transport answer request POSTs and GET streams with
    what `factory` builds, called as the transport calls sse-starlette's
    `EventSourceResponse` (keyword arguments); where `factory` returns None, with the
    SDK's own response. Returns the builder the transport now calls.

    Raises:
        SeamBroken: the transport no longer builds them through that module attribute.
    """
    _check_once()
    sdk_own = _SDK_EVENT_STREAM_RESPONSE
    if sdk_own is None:  # the SDK had none when this module was imported
        raise broken(SEAM, LIBRARY, "mcp.server.streamable_http.EventSourceResponse")

    def build(**arguments: Any) -> Any:
        response = factory(**arguments)
        return sdk_own(**arguments) if response is None else response

    streamable_http.EventSourceResponse = build
    return build


class _SessionId:
    """What the session manager takes a new session's id from (`.hex`, as of a UUID)."""

    __slots__ = ("hex",)

    def __init__(self, value: str) -> None:
        self.hex = value


def use_session_ids(make_id: Callable[[], str]) -> None:
    """Have the SDK's Streamable HTTP session manager name new sessions with `make_id()`.

    Raises:
        SeamBroken: the manager no longer makes its ids through that module attribute.
    """
    _check_once()
    streamable_http_manager.uuid4 = lambda: _SessionId(make_id())


async def spawn_stdio_server(
    command: str, args: list[str], env: dict[str, str], errlog: TextIO, cwd: str | Path | None
) -> ServerProcess:
    """Start a stdio server as the SDK's `stdio_client` does: the command resolved for the
    platform, in a process group of its own (a Job Object on Windows), stderr to `errlog`.

    Raises:
        OSError: the process could not be started.
        SeamBroken: the SDK no longer has the functions this seam starts it with.
    """
    _check_once()
    resolved = await sdk_stdio._get_executable_command(command)
    return await sdk_stdio._create_platform_compatible_process(
        command=resolved, args=args, env=env, errlog=errlog, cwd=cwd
    )


async def drain_stdout(process: ServerProcess) -> None:
    """Read and drop the rest of the server's stdout until shutdown closes it (shielded), so
    a server stuck writing can read its stdin and exit."""
    _check_once()
    await sdk_stdio._drain_stdout(process)


async def stop_stdio_server(process: ServerProcess) -> None:
    """The SDK's stop of a stdio server: close stdin, wait, then end its whole process tree
    (SIGTERM, then SIGKILL), each wait bounded."""
    _check_once()
    await sdk_stdio._stop_server_process(process)
