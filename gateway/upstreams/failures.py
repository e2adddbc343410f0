"""Translate what the SDK and transports raise into `UpstreamError`s with safe messages."""

from __future__ import annotations

import socket
import ssl

import httpx2
from anyio import BrokenResourceError, ClosedResourceError, EndOfStream
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, INVALID_REQUEST, REQUEST_TIMEOUT
from pydantic import ValidationError

from gateway.upstreams.bearer import NO_BEARER
from gateway.upstreams.errors import ErrorKind, UpstreamError, leaf_exceptions, redact, redact_data
from gateway.upstreams.http_status import take_refusal
from gateway.upstreams.spec import UpstreamSpec
from localrouter.url_masking import mask_url, mask_urls_in

_SESSION_GONE = "Session terminated"
"""What the SDK's Streamable HTTP transport reports when the server forgot our session (404)."""
_CLOSED = "Connection closed"
"""The SDK's own message for a lost connection; servers also answer -32000 for plain errors."""
_HTTP_LOST = (
    "SSE stream ended without a response",
    "SSE stream ended and reconnection attempts were exhausted",
)
_HTTP_LOST_PREFIX = "SSE stream failed: "
"""What the SDK's Streamable HTTP client (mcp 2.3, `_resolve_abandoned_request`) synthesizes,
also at -32000, when a request's response stream breaks off. It sets no data or flag that
would tell it apart from a server's own -32000 answer, so its exact wording has to."""


def root_cause(exc: BaseException) -> BaseException:
    """The most telling exception inside `exc`: an `UpstreamError` or `MCPError` first."""
    leaves = list(leaf_exceptions(exc))
    for wanted in (UpstreamError, MCPError):
        for leaf in leaves:
            if isinstance(leaf, wanted):
                return leaf
    return leaves[0] if leaves else exc


def startup_error(spec: UpstreamSpec, exc: BaseException) -> UpstreamError:
    """Explain why starting or reaching the upstream failed."""
    cause = root_cause(exc)
    if isinstance(cause, UpstreamError):
        return cause
    if _without_bearer(cause):
        return _error(spec, "unavailable", cause.message)
    if isinstance(cause, TimeoutError):
        return _error(spec, "timeout", f"no answer to the handshake within {spec.start_limit:g}s")
    if isinstance(cause, MCPError):
        status = take_refusal(spec.name) if spec.transport == "http" else None
        if status is not None:
            return _error(spec, "unavailable", f"{_where(spec)} answered HTTP {status}")
        if cause.code == CONNECTION_CLOSED:
            return _error(
                spec,
                "unavailable",
                "the upstream closed the connection during the handshake"
                + (" (its stderr is on its admin page)" if spec.transport == "stdio" else ""),
            )
        return _error(spec, "unavailable", f"the upstream refused the handshake: {cause.message}")
    if isinstance(cause, httpx2.HTTPError):
        return _error(spec, "unavailable", unreachable(spec, cause))
    if isinstance(cause, OSError):
        reason = cause.strerror or type(cause).__name__
        return _error(spec, "unavailable", f"could not start {spec.command!r}: {reason}")
    if isinstance(cause, ValidationError):
        return _error(
            spec, "protocol", "the upstream answered the handshake with an invalid result"
        )
    return _error(spec, "unavailable", f"could not start the session: {type(cause).__name__}")


def call_error(spec: UpstreamSpec, exc: BaseException, *, session_broken: bool) -> UpstreamError:
    """Explain why a request on a started session failed."""
    cause = root_cause(exc)
    if isinstance(cause, UpstreamError):
        return cause
    if _without_bearer(cause):
        return _error(spec, "unavailable", cause.message)
    if isinstance(cause, MCPError):
        if cause.code == REQUEST_TIMEOUT:
            return _error(spec, "timeout", cause.message)
        if (
            cause.code == CONNECTION_CLOSED
            and (session_broken or _connection_lost(spec, cause.message))
        ) or (cause.code == INVALID_REQUEST and cause.message == _SESSION_GONE):
            return _error(
                spec,
                "crashed",
                f"the connection closed before the upstream answered ({cause.message})",
            )
        secrets = spec.secret_values()
        return UpstreamError(
            spec.name,
            "rejected",
            redact(cause.message, secrets),
            code=cause.code,
            data=redact_data(cause.data, secrets),
        )
    if isinstance(cause, TimeoutError):
        return _error(spec, "timeout", "the upstream did not answer in time")
    if session_broken or isinstance(cause, ClosedResourceError | BrokenResourceError | EndOfStream):
        return _error(
            spec, "crashed", f"the connection to the upstream was lost ({type(cause).__name__})"
        )
    if isinstance(cause, ValidationError):
        return _error(
            spec, "protocol", "the upstream sent a result that does not match the protocol"
        )
    if isinstance(cause, httpx2.HTTPError):
        return _error(spec, "unavailable", unreachable(spec, cause))
    if isinstance(cause, RuntimeError):
        # The SDK raises RuntimeError for results that fail the tool's output schema.
        return _error(spec, "protocol", str(cause))
    return _error(spec, "protocol", f"unexpected failure: {type(cause).__name__}")


def _without_bearer(cause: BaseException) -> bool:
    """Whether the request was not sent for want of a token (`bearer.BearerTransport`)."""
    return isinstance(cause, MCPError) and cause.data == NO_BEARER


def _connection_lost(spec: UpstreamSpec, message: str) -> bool:
    """Whether a -32000 error is the SDK reporting a lost connection, not the server's answer."""
    if message == _CLOSED:
        return True
    return spec.transport == "http" and (
        message in _HTTP_LOST or message.startswith(_HTTP_LOST_PREFIX)
    )


def unreachable(spec: UpstreamSpec, error: httpx2.HTTPError) -> str:
    """Why an HTTP upstream could not be reached: refused, DNS, TLS, timeout, HTTP status."""
    where = _where(spec)
    if isinstance(error, httpx2.HTTPStatusError):
        return f"{where} answered HTTP {error.response.status_code}"
    if isinstance(error, httpx2.TimeoutException):
        return f"timeout: {where} did not answer within {spec.timeout:g}s"
    for reason in _causes(error):
        if isinstance(reason, ConnectionRefusedError):
            return f"connection refused by {where}"
        if isinstance(reason, socket.gaierror):
            return f"DNS lookup failed for {where}: {reason.strerror or reason}"
        if isinstance(reason, ssl.SSLCertVerificationError):
            return f"TLS certificate not accepted for {where}: {reason.verify_message}"
        if isinstance(reason, ssl.SSLError):
            return f"TLS handshake with {where} failed: {reason.reason or type(reason).__name__}"
    return f"could not reach {where}: {type(error).__name__}"


def _causes(error: BaseException):
    """The exception and the ones it was raised from (httpx wraps the socket's error)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _where(spec: UpstreamSpec) -> str:
    return mask_url(spec.url) if spec.url else spec.name


def _error(spec: UpstreamSpec, kind: ErrorKind, message: str) -> UpstreamError:
    # An upstream's or a library's text may quote a URL with its credentials.
    return UpstreamError(spec.name, kind, mask_urls_in(redact(message, spec.secret_values())))
