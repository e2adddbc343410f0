"""This worker's traces: the client's trace context carried through, spans exported when asked.

Trace context flows with nothing installed: OpenTelemetry's API, without an SDK, keeps a
parent's span context current, so a client's `traceparent` (from the request's `_meta`,
which the SDK's server middleware reads, or from the /mcp POST's headers, read here) reaches
every upstream: the SDK's dispatcher writes it into each upstream request's `_meta`, and
`upstreams/trace_headers.py` into an HTTP upstream's headers. Spans are recorded, and
exported over OTLP/HTTP, only when the OTEL_* variables configure an endpoint
(`settings.TRACES_OTLP_ENDPOINT`): `start()` installs the SDK's tracer provider then, once
per worker process, and `flush()` sends what is buffered when the worker stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from django.conf import settings
from opentelemetry import context, trace
from opentelemetry.propagate import extract

if TYPE_CHECKING:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

logger = logging.getLogger(__name__)

DEFAULT_SERVICE_NAME = "localrouter"
"""`service.name` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names another."""
FLUSH_SECONDS = 5.0
"""How long a stopping worker waits for its last spans to be sent before it drops them."""
TRACE_HEADERS = (b"traceparent", b"tracestate")

tracer = trace.get_tracer("localrouter")
_export: tuple[BatchSpanProcessor, OTLPSpanExporter] | None = None
_started = False


def start() -> None:
    """Record spans and export them over OTLP/HTTP if the settings ask for it; once per
    process (OpenTelemetry allows one tracer provider per process)."""
    global _started, _export
    if _started:
        return
    _started = True
    endpoint = settings.TRACES_OTLP_ENDPOINT
    if not endpoint:
        return
    # Imported only here: a worker that exports nothing never loads the SDK.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()  # reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    provider = TracerProvider(resource=resource)  # reads OTEL_TRACES_SAMPLER
    # The exporter reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and certificates;
    # the processor OTEL_BSP_*.
    exporter = OTLPSpanExporter(endpoint=endpoint)
    processor = BatchSpanProcessor(exporter)
    provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    _export = (processor, exporter)
    logger.info(
        "traces: exported over OTLP/HTTP to %s as service %r",
        endpoint,
        resource.attributes[SERVICE_NAME],
    )


async def flush() -> None:
    """Send the spans still buffered, as the worker stops: within `FLUSH_SECONDS`, then
    whatever is left is dropped (an unreachable collector must not hold the worker up)."""
    if _export is None:
        return
    processor, exporter = _export
    # The processor sends what it holds as it shuts down; the SDK's exit handler later
    # finds it shut down already.
    stopping = _in_daemon_thread(processor.shutdown)
    done, _ = await asyncio.wait({stopping}, timeout=FLUSH_SECONDS)
    if not done:
        logger.warning("traces: the last spans could not be sent within %g s", FLUSH_SECONDS)
        exporter.shutdown()  # ends its retries, so the processor stops at once
        await asyncio.wait({stopping}, timeout=1.0)


def _in_daemon_thread(function: Callable[[], object]) -> asyncio.Future[None]:
    """Run `function` on a thread the interpreter does not wait for at exit."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()

    def run() -> None:
        try:
            function()
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, finished)

    threading.Thread(target=run, name="traces-flush", daemon=True).start()
    return finished


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@contextmanager
def continued_from_headers(headers: Iterable[tuple[bytes, bytes]]) -> Iterator[None]:
    """Make an HTTP request's W3C trace context (`traceparent`, `tracestate`) current.

    The parent of what the request causes, unless its JSON-RPC `_meta` carries one: the
    SDK's server middleware prefers that.
    """
    carrier = {
        name.lower().decode("latin-1"): value.decode("latin-1")
        for name, value in headers
        if name.lower() in TRACE_HEADERS
    }
    parent = extract(carrier) if carrier else None
    if parent is None or not trace.get_current_span(parent).get_span_context().is_valid:
        yield
        return
    token = context.attach(parent)
    try:
        yield
    finally:
        context.detach(token)
