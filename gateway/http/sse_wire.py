"""The event-stream wire the gateway writes: response headers, events and keep-alive pings.

Byte for byte what the SDK's own response (sse-starlette's `EventSourceResponse`) writes
for the same events and headers, so a client sees no difference between the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

SEPARATOR = "\r\n"
MEDIA_TYPE = "text/event-stream; charset=utf-8"  # when the caller names none

Headers = list[tuple[bytes, bytes]]


def stream_headers(given: Mapping[str, str] | None) -> Headers:
    """The headers of an event stream: the given ones (names in lower case), caching off
    unless they say otherwise, the connection kept alive, proxies asked not to buffer."""
    headers = {name.lower(): value for name, value in (given or {}).items()}
    headers.setdefault("cache-control", "no-store")
    headers["connection"] = "keep-alive"
    headers["x-accel-buffering"] = "no"
    headers.setdefault("content-type", MEDIA_TYPE)
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


def encode_event(event: Mapping[str, object]) -> bytes:
    """An event given as a mapping (`id`, `event`, `data`, `retry`) in its wire form."""
    lines: list[str] = []
    if (event_id := event.get("id")) is not None:
        lines.append(f"id: {_one_line(str(event_id))}")
    if (name := event.get("event")) is not None:
        lines.append(f"event: {_one_line(str(name))}")
    if (data := event.get("data")) is not None:
        lines += [f"data: {line}" for line in _lines(str(data))]
    if (retry := event.get("retry")) is not None:
        if not isinstance(retry, int):
            raise TypeError("an event's retry must be an int")
        lines.append(f"retry: {retry}")
    return "".join(line + SEPARATOR for line in [*lines, ""]).encode()


def encode_ping() -> bytes:
    """A keep-alive comment line, stamped with the time."""
    return f": ping - {datetime.now(UTC)}{SEPARATOR}{SEPARATOR}".encode()


def _lines(text: str) -> list[str]:
    """`text` split at CRLF, CR or LF (and nothing else: a JSON string may hold U+2028)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _one_line(text: str) -> str:
    """`text` without line breaks (an event's id and name are one line)."""
    return text.replace("\r", "").replace("\n", "")
