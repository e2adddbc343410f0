"""The spans the gateway opens itself: one per client call, and its indexing work.

Around them, the SDK opens the exchange's SERVER span (its server middleware, parented on
the client's trace context) and a CLIENT span per upstream request (its dispatcher, which
also writes the context into the request's `_meta`). Attributes name who and what, never
arguments, content or tokens; with nothing recording (no exporter configured) they are not
even computed.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, StatusCode

from gateway.call_monitor import CallFacts
from gateway.tracing import tracer
from indexing.engine.compressor import Compression, ResponseCompressor
from indexing.engine.stats import CompressionStats


@contextmanager
def call_span(call: CallFacts) -> Iterator[None]:
    """The span of one client call (`CallMonitor`'s span factory); its outcome is set at the end."""
    if not trace.get_current_span().is_recording():
        # Nothing records the exchange (no exporter, or sampled out): a span of the call
        # would not be recorded either, and the exchange's context is already current.
        yield
        return
    with tracer.start_as_current_span(
        _call_span_name(call), record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield
        finally:
            if span.is_recording():
                _describe_call(span, call)


def _call_span_name(call: CallFacts) -> str:
    """Bounded names: the client's own words for an unknown name never become one."""
    if call.outcome == "unknown":
        return f"{call.kind} (unknown)"
    if call.kind == "index":
        return call.name
    if call.kind in ("tool", "prompt"):
        return f"{call.kind} {call.upstream}/{call.name}"
    return f"{call.kind} {call.upstream}"


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
    if call.outcome != "unknown" and call.kind in ("tool", "index"):
        attributes["gen_ai.tool.name"] = call.name
    elif call.outcome != "unknown" and call.kind == "prompt":
        attributes["gen_ai.prompt.name"] = call.name
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
