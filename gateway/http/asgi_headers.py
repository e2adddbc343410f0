"""Header values of ASGI messages: a scope's request headers, a response's start."""

from __future__ import annotations

from collections.abc import Iterable


def header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    """The first value of the header `name` (lower case) in `headers`, or None."""
    return next((v.decode("latin-1") for k, v in headers if k.lower() == name), None)
