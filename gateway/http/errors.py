"""HTTP-level refusals for /mcp, each a JSON-RPC error body with a clear message."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from mcp_types import INVALID_REQUEST

from localrouter.oauth_config import MCP_SCOPE

RETRY_AFTER_SECONDS = 5  # a restart, or another worker behind the balancer, takes over
OWNER_BUSY_RETRY_SECONDS = 1  # a busy owner drains its inbox in well under a second


def refusal(
    status: int,
    message: str,
    *,
    code: int = INVALID_REQUEST,
    request_id: str | int | None = None,
    extra_headers: list[tuple[bytes, bytes]] = (),
) -> tuple:
    """(status, headers, body) for a refused request."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    ).encode()
    headers = [(b"content-type", b"application/json"), *extra_headers]
    return status, headers, body


async def send_refusal(send: Callable[[dict], Awaitable[None]], refusal: tuple) -> None:
    """Answer an exchange with a refusal (an ASGI `send`)."""
    status, headers, body = refusal
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def unauthorized(metadata_url: str, error: str = "", description: str = "") -> tuple:
    """401 (403 for a token without the scope) with a Bearer challenge that points clients
    at the protected resource metadata (RFC 9728 §5.1), where OAuth sign-in starts."""
    params = [f'resource_metadata="{metadata_url}"', f'scope="{MCP_SCOPE}"']
    if error:  # RFC 6750 §3.1: no error code when no credentials were sent
        params += [f'error="{error}"', f'error_description="{description}"']
    challenge = "Bearer " + ", ".join(params)
    status = 403 if error == "insufficient_scope" else 401
    message = description or "missing bearer token"
    return refusal(status, message, extra_headers=[(b"www-authenticate", challenge.encode())])


def throttled(seconds: int) -> tuple:
    """429 for an address that sent too many invalid tokens; its tokens are not looked at."""
    retry_after = (b"retry-after", str(seconds).encode())
    message = f"too many invalid tokens from this address; retry in {seconds} s"
    return refusal(429, message, extra_headers=[retry_after])


def stopping() -> tuple:
    """503 for a request that reached a worker on its way down; another will serve it."""
    retry_after = (b"retry-after", str(RETRY_AFTER_SECONDS).encode())
    return refusal(503, "server is shutting down; retry shortly", extra_headers=[retry_after])


def owner_busy() -> tuple:
    """503 for a forwarded request its session's worker did not take in time; it is alive,
    so the session is not lost and the same request may be sent again."""
    retry_after = (b"retry-after", str(OWNER_BUSY_RETRY_SECONDS).encode())
    message = "the worker serving this session is busy; retry shortly"
    return refusal(503, message, extra_headers=[retry_after])


def origin_allowed(origin: str | None, allowed: list[str]) -> bool:
    """Absent Origin (non-browser clients) passes; otherwise exact or 'scheme://host:*' match."""
    if not origin:
        return True
    for pattern in allowed:
        if origin == pattern:
            return True
        if (
            pattern.endswith(":*")
            and origin.startswith(pattern[:-1])
            and origin[len(pattern) - 1 :].isdigit()
        ):
            return True
    return False


def host_allowed(host: str | None, allowed: list[str]) -> bool:
    """The Host header names an allowed host, on any port ('*' allows all)."""
    if not host:
        return False
    if "*" in allowed:
        return True
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name in allowed or host in allowed
