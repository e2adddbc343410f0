"""The HTTP status an upstream last refused a request with.

The SDK's Streamable HTTP transport turns a 4xx/5xx answer into a generic JSON-RPC error
("Not Found", "Server returned an error response"); a response hook on our own HTTP
client keeps the status, so a failed start can say "answered HTTP 401".
"""

from __future__ import annotations

import httpx2

_refusals: dict[str, int] = {}


def note_refusals(upstream: str, client: httpx2.AsyncClient) -> httpx2.AsyncClient:
    """Remember the status of `client`'s error responses under `upstream`."""

    async def on_response(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            _refusals[upstream] = response.status_code

    client.event_hooks["response"] = [*client.event_hooks.get("response", []), on_response]
    return client


def take_refusal(upstream: str) -> int | None:
    """The status of the last error response from `upstream`, forgotten once taken."""
    return _refusals.pop(upstream, None)


def forget_refusal(upstream: str) -> None:
    """Forget an old error status (before a new attempt)."""
    _refusals.pop(upstream, None)
