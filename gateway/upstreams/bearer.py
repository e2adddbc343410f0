"""Bearer tokens on an HTTP upstream's requests, from a source the gateway hands in.

The connection knows nothing of grants, members or Django: it asks a `BearerSource` for
the current token before every request, and when the upstream answers `401` it tells the
source which token was refused and retries once with the one it gets back (a token that
expired mid-session costs one round trip, not a failed call). When the source has no
token to give (no grant, or one that needs re-authorization) the request is not sent:
the SDK gets a JSON-RPC error carrying the source's message, so the caller learns why
(and, from the gateway's source, where to connect).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

import httpx2
from mcp_types import INVALID_REQUEST

NO_BEARER = "localrouter/bearer-unavailable"
"""Marks (in the error's `data`) an error the gateway made up because it had no token."""


class BearerUnavailable(Exception):
    """The source has no token for this connection; `message` says why and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BearerSource(Protocol):
    """Where a connection's bearer token comes from (the gateway's grants)."""

    async def token(self) -> str:
        """The token to send now.

        Raises:
            BearerUnavailable: there is none to send.
        """
        ...

    async def rejected(self, token: str) -> str:
        """The upstream refused `token` (HTTP 401): a fresh one to retry with.

        Raises:
            BearerUnavailable: none can be had (the grant needs re-authorization).
        """
        ...


class BearerTransport(httpx2.AsyncBaseTransport):
    """Sends each request with the source's current token; on `401`, once more with a fresh one."""

    def __init__(self, source: BearerSource, inner: httpx2.AsyncBaseTransport) -> None:
        self._source = source
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            token = await self._source.token()
        except BearerUnavailable as missing:
            return _unsent(request, missing.message)
        response = await self._send(request, token)
        if response.status_code != 401:
            return response
        await response.aclose()
        try:
            fresh = await self._source.rejected(token)
        except BearerUnavailable as missing:
            return _unsent(request, missing.message)
        return await self._send(request, fresh)

    async def _send(self, request: httpx2.Request, token: str) -> httpx2.Response:
        request.headers["Authorization"] = f"Bearer {token}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _unsent(request: httpx2.Request, message: str) -> httpx2.Response:
    """The answer to a request that could not carry a token: a JSON-RPC error for its id
    (the SDK's transport hands an error body of a 4xx answer to the waiting caller)."""
    error: dict[str, Any] = {"code": INVALID_REQUEST, "message": message, "data": NO_BEARER}
    body = {"jsonrpc": "2.0", "id": _request_id(request), "error": error}
    return httpx2.Response(
        401, json=body, headers={"Content-Type": "application/json"}, request=request
    )


def _request_id(request: httpx2.Request) -> Any:
    """The JSON-RPC id of a POSTed request (None for a notification, a GET or a DELETE)."""
    if request.method != "POST":
        return None
    try:
        message = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return None
    return message.get("id") if isinstance(message, dict) else None
