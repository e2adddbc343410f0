"""Plain JSON answers for request POSTs whose event stream would carry only the result.

The SDK answers every request POST with an SSE stream (so progress, logging and requests
from an upstream can reach the client during a call). When the first event on that stream
is the request's own response, the stream ends right after it: the client then gets that
response as one `application/json` body instead, which the transport allows and which
costs less to send and to read. When anything else comes first, the held response start
and that event go out unchanged and the exchange stays a stream.

The answer to a cancelled request stays a stream too: the 2025-era transport writes
`Request cancelled` only to end the stream of a request its client has given up on, and
a client that has already closed its session can drop a late event but not a late JSON
body (the SDK's client raises `BrokenResourceError` into its task group on one).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from mcp.server.streamable_http import REQUEST_CANCELLED

Send = Callable[[dict], Awaitable[None]]

EVENT_START = b"event: message\r\ndata: "
EVENT_END = b"\r\n\r\n"
# A response or error object as the SDK serialises it (keys in model order). Anything
# else, a request or notification from the server included, keeps the stream.
RESPONSE = re.compile(
    rb'\{(?:"jsonrpc":"2\.0",)?"id":(?:"(?:[^"\\]|\\.)*"|-?\d+),"(result|error)":'
)
CANCELLED = re.compile(rb'\{"code":%d[,}]' % REQUEST_CANCELLED)  # right after "error":
STREAM_ONLY_HEADERS = {b"content-type", b"content-length", b"cache-control", b"connection"}


def lone_response(body: bytes) -> bytes | None:
    """The JSON of a chunk that is exactly one SSE event holding a JSON-RPC response
    (not the answer to a cancelled request)."""
    if not (body.startswith(EVENT_START) and body.endswith(EVENT_END)):
        return None
    data = body[len(EVENT_START) : -len(EVENT_END)]
    response = RESPONSE.match(data)
    if b"\r" in data or b"\n" in data or response is None:
        return None
    if response[1] == b"error" and CANCELLED.match(data, response.end()):
        return None
    return data


def _is_event_stream(start: dict) -> bool:
    return any(
        name.lower() == b"content-type" and value.startswith(b"text/event-stream")
        for name, value in start.get("headers", [])
    )


def plain_json_when_possible(send: Send) -> Send:
    """A send that turns an event stream holding only the response into a JSON answer."""
    held: dict | None = None
    mode = "undecided"  # then "json" (the stream's remaining end is dropped) or "stream"

    async def send_json_or_stream(event: dict) -> None:
        nonlocal held, mode
        if mode == "stream":
            await send(event)
            return
        if mode == "json":
            return  # the end of the event stream already answered as JSON
        if event["type"] == "http.response.start" and _is_event_stream(event):
            held = event
            return
        if held is None:
            mode = "stream"  # not an event stream: nothing to change
            await send(event)
            return
        data = (
            lone_response(event.get("body", b"")) if event["type"] == "http.response.body" else None
        )
        if data is None:
            mode = "stream"
            await send(held)
            await send(event)
            return
        mode = "json"
        headers = [
            (k, v) for k, v in held.get("headers", []) if k.lower() not in STREAM_ONLY_HEADERS
        ]
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
        await send({**held, "headers": headers})
        await send({"type": "http.response.body", "body": data, "more_body": False})

    return send_json_or_stream
