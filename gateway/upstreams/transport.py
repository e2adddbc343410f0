"""Build the SDK client transport for an `UpstreamSpec`, and watch it for closure."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TextIO

import anyio
import httpx2
from mcp.client._transport import Transport, TransportStreams
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, create_mcp_http_client
from mcp.shared.message import SessionMessage

from gateway.upstreams.spec import UpstreamSpec

MAX_SSE_EVENT_SIZE = 64 * 1024 * 1024
"""Streamable HTTP events may carry large tool results; the SDK's default cap is 1 MiB."""


def open_transport(spec: UpstreamSpec, errlog: TextIO | None = None) -> Transport:
    """Return the (not yet entered) SDK transport that reaches `spec`."""
    if spec.transport == "stdio":
        assert spec.command is not None  # UpstreamSpec validates this
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=spec.cwd
        )
        # Under daphne's verbose logging sys.stderr is a Twisted log shim without a file
        # descriptor; the child process needs a real one.
        return stdio_client(params, errlog=errlog or _real_stderr())
    assert spec.url is not None  # UpstreamSpec validates this
    if spec.transport == "sse":
        return sse_client(spec.url, headers=dict(spec.headers), timeout=spec.timeout)
    http_client = create_mcp_http_client(
        headers=dict(spec.headers),
        timeout=httpx2.Timeout(spec.timeout, read=max(spec.timeout, MCP_DEFAULT_SSE_READ_TIMEOUT)),
    )
    return streamable_http_client(
        spec.url, http_client=http_client, max_sse_event_size=MAX_SSE_EVENT_SIZE
    )


def _real_stderr() -> TextIO:
    try:
        sys.stderr.fileno()
        return sys.stderr
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__


@asynccontextmanager
async def watch_closed(
    transport: Transport, on_closed: Callable[[], None]
) -> AsyncIterator[TransportStreams]:
    """Enter `transport`; call `on_closed` once its read side ends (EOF, child exit, teardown)."""
    async with transport as (read_stream, write_stream):
        relay_send, relay_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            try:
                async with relay_send:
                    async for item in read_stream:
                        await relay_send.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass
            finally:
                on_closed()

        async with anyio.create_task_group() as tg, relay_receive:
            tg.start_soon(relay)
            try:
                yield relay_receive, write_stream
            finally:
                tg.cancel_scope.cancel()
