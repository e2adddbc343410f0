"""What the gateway adds to the SDK's spans: each call's facts, and its indexing work.

The SDK opens the exchange's SERVER span (its server middleware, parented on the client's
trace context) and a CLIENT span per upstream request (its dispatcher, which also writes
the context into the request's `_meta`). The gateway writes each call's facts on the
exchange's span and opens spans for compressing and indexing a large response.
Attributes name who and what, never arguments, content or tokens; with nothing recording
(no exporter configured) they are not even computed.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, StatusCode

from gateway.operations.call_monitor import CallFacts
from gateway.operations.tracing import tracer
from indexing.api.compression import Compression, CompressionStats, ResponseCompressor


@contextmanager
def call_span(call: CallFacts) -> Iterator[None]:
    """`CallMonitor`'s span factory: the call's facts, once known, go on the span of the
    exchange that carries it (the SDK's server span). A span of its own would add a third
    span to every small call for the same information (docs/benchmarks.md)."""
    span = trace.get_current_span()
    try:
        yield
    finally:
        # Not once that span has ended (a 2026-07-28 call answered over several rounds).
        if span.is_recording():
            _describe_call(span, call)


def _describe_call(span: Span, call: CallFacts) -> None:
    attributes: dict[str, Any] = {
        "localrouter.call.kind": call.kind,
        "localrouter.client": call.client_name,
        "localrouter.session": call.session,
        "localrouter.outcome": call.outcome,
        "localrouter.bytes_received": call.bytes_received,
        "localrouter.bytes_delivered": call.bytes_delivered,
    }
    if call.upstream:
        attributes["localrouter.upstream"] = call.upstream
    if call.kind in ("tool", "prompt") and call.outcome != "unknown":
        # As the upstream knows it; the SDK names the exposed one (`gen_ai.tool.name`).
        attributes[f"localrouter.{call.kind}"] = call.name
    if call.reason:
        attributes["localrouter.reason"] = call.reason
    span.set_attributes(attributes)
    if call.outcome != "ok":
        span.set_status(StatusCode.ERROR, call.reason or call.outcome)


class TracedCompressor(ResponseCompressor):
    """A session's compressor whose work shows in the trace: a span while the placeholder is
    made, and one until the store has the response (written on a thread after the reply)."""

    def prepare(self, tool_name: str, text: str, **options: Any) -> Compression | None:
        """`ResponseCompressor.prepare`, inside a span."""
        with tracer.start_as_current_span("compress response") as span:
            compression = super().prepare(tool_name, text, **options)
            if span.is_recording():
                span.set_attributes(
                    {"gen_ai.tool.name": tool_name, "localrouter.indexed": compression is not None}
                )
            if compression is not None:
                _follow_indexing(compression.indexed)
        return compression


def _follow_indexing(indexed: Future[CompressionStats]) -> None:
    """A span from now until the response is in the store (its writer thread ends it)."""
    span = tracer.start_span("index response")
    if not span.is_recording():
        return

    def ended(done: Future[CompressionStats]) -> None:
        if done.cancelled() or done.exception() is not None:
            span.set_status(StatusCode.ERROR, "indexing failed")
        else:
            stats = done.result()
            span.set_attributes(
                {
                    "localrouter.index.label": stats.label,
                    "localrouter.index.original_bytes": stats.original_bytes,
                    "localrouter.index.delivered_bytes": stats.delivered_bytes,
                    "localrouter.index.lines": stats.lines,
                    "localrouter.index.chunks": stats.chunks,
                }
            )
        span.end()

    indexed.add_done_callback(ended)
