"""Build the client transport for an `UpstreamSpec` (the SDK's for HTTP and SSE, the
gateway's own for stdio: `stdio.py`), and watch it for closure."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from gateway.seams.mcp_sdk_seam import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    Transport,
    TransportStreams,
    create_mcp_http_client,
)
from gateway.upstreams.bearer import BearerSource, BearerTransport
from gateway.upstreams.errors import UpstreamError
from gateway.upstreams.http_status import forget_refusal, note_refusals
from gateway.upstreams.spec import UpstreamSpec
from gateway.upstreams.stderr import stderr_relay
from gateway.upstreams.stdio import stdio_transport
from gateway.upstreams.trace_headers import carry_trace_context
from gateway.upstreams.wire_quirks import mend


def open_transport(spec: UpstreamSpec, bearer: BearerSource | None = None) -> Transport:
    """Return the (not yet entered) SDK transport that reaches `spec`; an HTTP upstream's
    requests carry `bearer`'s token when one is given (see `bearer.py`).

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
        return _stdio_with_relay(spec)
    assert spec.url is not None  # UpstreamSpec validates this
    if spec.transport == "sse":
        return sse_client(
            spec.url,
            headers=dict(spec.headers),
            timeout=spec.timeout,
            httpx_client_factory=lambda headers, timeout, auth: http_client(
                headers, timeout, bearer
            ),
        )
    return _streamable_http(spec, bearer)


def http_client(
    headers: dict[str, str] | None, timeout: httpx2.Timeout, bearer: BearerSource | None
) -> httpx2.AsyncClient:
    """The SDK's HTTP client for an upstream, or one whose requests carry `bearer`'s token
    (set up as the SDK's: the same timeouts, redirects not followed)."""
    if bearer is None:
        return create_mcp_http_client(headers=headers, timeout=timeout)
    return httpx2.AsyncClient(
        headers=headers,
        timeout=timeout,
        transport=BearerTransport(bearer, httpx2.AsyncHTTPTransport()),
    )


@asynccontextmanager
async def _streamable_http(
    spec: UpstreamSpec, bearer: BearerSource | None
) -> AsyncIterator[TransportStreams]:
    """The Streamable HTTP transport with an HTTP client of its own, closed with it (the SDK
    closes only the clients it makes itself, which would leave the connections open).

    Its events may carry large tool results: they are capped at `spec.max_message_bytes`
    like a stdio upstream's messages (the SDK's default is 1 MiB)."""
    assert spec.url is not None
    forget_refusal(spec.name)
    client = http_client(
        dict(spec.headers),
        httpx2.Timeout(spec.timeout, read=max(spec.timeout, MCP_DEFAULT_SSE_READ_TIMEOUT)),
        bearer,
    )
    note_refusals(spec.name, client)
    carry_trace_context(client)
    async with (
        client,
        streamable_http_client(
            spec.url, http_client=client, max_sse_event_size=spec.max_message_bytes
        ) as streams,
    ):
        yield streams


@asynccontextmanager
async def _stdio_with_relay(spec: UpstreamSpec) -> AsyncIterator[TransportStreams]:
    """The stdio transport, its stderr logged with secrets redacted (never passed through)."""
    async with stderr_relay(spec) as errlog, stdio_transport(spec, errlog) as streams:
        yield streams


@asynccontextmanager
async def watch_closed(
    transport: Transport, on_closed: Callable[[UpstreamError | None], None]
) -> AsyncIterator[TransportStreams]:
    """Enter `transport`; call `on_closed` once its read side ends (EOF, child exit, teardown),
    with the transport's own reason when it gave one (an `UpstreamError` as its last item,
    such as a message over the size limit), before the session learns that it ended.

    What arrives is mended on the way (`wire_quirks`).
    """
    async with transport as (read_stream, write_stream):
        relay_send, relay_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            reason: UpstreamError | None = None
            try:
                async with relay_send:
                    try:
                        async for item in read_stream:
                            if isinstance(item, UpstreamError):
                                reason = item
                                break
                            await relay_send.send(mend(item))
                    finally:
                        # Before relay_send closes: the calls it fails then see the reason.
                        on_closed(reason)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass

        async with anyio.create_task_group() as tg, relay_receive:
            tg.start_soon(relay)
            try:
                yield relay_receive, write_stream
            finally:
                tg.cancel_scope.cancel()
