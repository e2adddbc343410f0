"""Build the SDK client transport for an `UpstreamSpec`, and watch it for closure."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from gateway.sdk_internals import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    Transport,
    TransportStreams,
    create_mcp_http_client,
)
from gateway.upstreams.errors import UpstreamError
from gateway.upstreams.http_status import forget_refusal, note_refusals
from gateway.upstreams.spec import UpstreamSpec
from gateway.upstreams.stderr import stderr_relay
from gateway.upstreams.stdout_noise import silence_sdk_parse_tracebacks
from gateway.upstreams.trace_headers import carry_trace_context
from gateway.upstreams.wire_quirks import mend

MAX_SSE_EVENT_SIZE = 64 * 1024 * 1024
"""Streamable HTTP events may carry large tool results; the SDK's default cap is 1 MiB."""


def open_transport(spec: UpstreamSpec) -> Transport:
    """Return the (not yet entered) SDK transport that reaches `spec`.

    Raises:
        UpstreamError: the settings use placeholder variables that are not set.
    """
    if spec.unset:
        raise UpstreamError(
            spec.name,
            "unavailable",
            f"set {', '.join(spec.unset)} in the gateway's environment (or .env file): "
            "this upstream's settings use them",
        )
    if spec.transport == "stdio":
        silence_sdk_parse_tracebacks()
        assert spec.command is not None  # UpstreamSpec validates this
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=spec.cwd
        )
        return _stdio_with_relay(spec, params)
    assert spec.url is not None  # UpstreamSpec validates this
    if spec.transport == "sse":
        return sse_client(spec.url, headers=dict(spec.headers), timeout=spec.timeout)
    return _streamable_http(spec)


@asynccontextmanager
async def _streamable_http(spec: UpstreamSpec) -> AsyncIterator[TransportStreams]:
    """The Streamable HTTP transport with an HTTP client of its own, closed with it (the SDK
    closes only the clients it makes itself, which would leave the connections open)."""
    assert spec.url is not None
    forget_refusal(spec.name)
    http_client = create_mcp_http_client(
        headers=dict(spec.headers),
        timeout=httpx2.Timeout(spec.timeout, read=max(spec.timeout, MCP_DEFAULT_SSE_READ_TIMEOUT)),
    )
    note_refusals(spec.name, http_client)
    carry_trace_context(http_client)
    async with (
        http_client,
        streamable_http_client(
            spec.url, http_client=http_client, max_sse_event_size=MAX_SSE_EVENT_SIZE
        ) as streams,
    ):
        yield streams


@asynccontextmanager
async def _stdio_with_relay(
    spec: UpstreamSpec, params: StdioServerParameters
) -> AsyncIterator[TransportStreams]:
    """The stdio transport, its stderr logged with secrets redacted (never passed through)."""
    async with stderr_relay(spec) as errlog, stdio_client(params, errlog=errlog) as streams:
        yield streams


@asynccontextmanager
async def watch_closed(
    transport: Transport, on_closed: Callable[[], None]
) -> AsyncIterator[TransportStreams]:
    """Enter `transport`; call `on_closed` once its read side ends (EOF, child exit, teardown).

    What arrives is mended on the way (`wire_quirks`).
    """
    async with transport as (read_stream, write_stream):
        relay_send, relay_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            try:
                async with relay_send:
                    async for item in read_stream:
                        await relay_send.send(mend(item))
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
