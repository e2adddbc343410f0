"""An HTTP upstream's requests carry the caller's W3C trace context in their headers.

The SDK writes it into each request's `_meta`; servers and proxies that trace HTTP read the
`traceparent` header instead. The SDK's transport sends each message from a task started
in its sender's context, so the context current in the hook is the calling request's.
"""

from __future__ import annotations

import httpx2
from opentelemetry.propagate import inject


def carry_trace_context(client: httpx2.AsyncClient) -> httpx2.AsyncClient:
    """Add the current trace context (if any) to every request `client` sends."""

    async def on_request(request: httpx2.Request) -> None:
        inject(request.headers)

    client.event_hooks["request"] = [*client.event_hooks.get("request", []), on_request]
    return client
