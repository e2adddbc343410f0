"""`UpstreamError`: the one exception type every upstream failure surfaces as."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT, ErrorData

ErrorKind = Literal["unavailable", "timeout", "crashed", "protocol", "rejected", "closed"]
"""
- unavailable: the upstream could not be started or reached (or is backing off after that).
- timeout: no answer within the per-call or connect timeout; the connection stays usable.
- crashed: the process died or the transport closed mid-session; the next use restarts it.
- protocol: the upstream broke the protocol (non-JSON-RPC output, malformed results).
- rejected: the upstream answered with a JSON-RPC error; `code`/`data` are the upstream's.
- closed: the connection was closed by the gateway (`aclose()`).
"""

_DEFAULT_CODES: dict[str, int] = {
    "unavailable": CONNECTION_CLOSED,
    "timeout": REQUEST_TIMEOUT,
    "crashed": CONNECTION_CLOSED,
    "protocol": INTERNAL_ERROR,
    "closed": CONNECTION_CLOSED,
}
_CLIENT_PHRASES: dict[str, str] = {
    "unavailable": "is unavailable",
    "timeout": "timed out",
    "crashed": "crashed",
    "protocol": "broke the protocol",
    "rejected": "rejected the request",
    "closed": "is closed",
}
REDACTED = "[redacted]"
TOKEN_PATTERNS = re.compile(
    r"(?i)(?P<named>\b(?:bearer|token|api[_-]?key|secret|password|authorization)\b[\"']?"
    r"\s*[:=]?\s*[\"']?)[^\s\"',;]{8,}"
    r"|\b(?:gh[pousr]_|github_pat_|glpat-|sk-|xox[abposr]-|AKIA)[A-Za-z0-9_\-]{8,}"
)
"""Credentials in free text: `token=…`, `Bearer …`, and well-known token prefixes."""


class UpstreamError(Exception):
    """A call to an upstream failed; the message never contains env or header values."""

    def __init__(
        self,
        upstream: str,
        kind: ErrorKind,
        message: str,
        *,
        code: int | None = None,
        data: Any = None,
    ) -> None:
        super().__init__(upstream, kind, message)
        self.upstream = upstream
        self.kind: ErrorKind = kind
        self.message = message
        self.code = code if code is not None else _DEFAULT_CODES.get(kind, INTERNAL_ERROR)
        self.data = data

    def __str__(self) -> str:
        return f"upstream {self.upstream!r} {self.kind}: {self.message}"

    def client_message(self) -> str:
        """What the gateway's client is told (tool error text, JSON-RPC error message)."""
        return f"Upstream {self.upstream!r} {_CLIENT_PHRASES[self.kind]}: {self.message}"

    def to_error_data(self) -> ErrorData:
        """The JSON-RPC error to send to the gateway's client: the upstream's own code and
        data when it answered with an error (`rejected`), else the code of the failure."""
        return ErrorData(code=self.code, message=self.client_message(), data=self.data)


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace every occurrence of a secret value in `text` (pass longest secrets first)."""
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_line(text: str, secrets: Iterable[str]) -> str:
    """`redact`, then anything that looks like a credential (for an upstream's own output)."""
    return TOKEN_PATTERNS.sub(lambda m: (m.group("named") or "") + REDACTED, redact(text, secrets))


def redact_data(data: Any, secrets: tuple[str, ...]) -> Any:
    """Redact secrets inside JSON-like error data."""
    if isinstance(data, str):
        return redact(data, secrets)
    if isinstance(data, dict):
        return {redact(str(k), secrets): redact_data(v, secrets) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_data(v, secrets) for v in data]
    return data


def leaf_exceptions(exc: BaseException) -> Iterator[BaseException]:
    """Yield the non-group exceptions inside (possibly nested) exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaf_exceptions(inner)
    else:
        yield exc
