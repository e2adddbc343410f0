"""The gateway's answers to the SDK's Streamable HTTP request POSTs and GET streams.

The SDK answers every request POST (so progress, logging and requests from an upstream can
reach the client during a call) and the session's GET stream with an event-stream response
it builds from a stream of events. For the exchanges the gateway serves (`serving`), it is
given a `GatewayEventStream` instead (`host.py`, through the SDK seam), an ASGI response of
the gateway's own that sends the same wire with less work:

- A request POST whose first event is the request's own response is answered with that
  response as one `application/json` body, which the transport allows and which costs
  less to send and to read (most calls have nothing else to say). When anything else
  comes first, or nothing comes for the ping interval, the answer is an event stream.
  What an event is comes from its JSON-RPC message, decoded (`own_response`).
- The answer to a cancelled request stays a stream: the 2025-era transport writes
  `Request cancelled` only to end the stream of a request its client has given up on, and
  a client that has already closed its session can drop a late event but not a late JSON
  body (the SDK's client raises `BrokenResourceError` into its task group on one).
- One task (plus the SDK's data sender) does it all. The consumer cancels an exchange
  whose client leaves (on `http.disconnect`), which ends the response and its tasks, so
  nothing here listens for the disconnect; the gateway ends every session before the
  server stops, so nothing watches for shutdown; and a timer starts the keep-alive pings
  only once a stream has been quiet for the ping interval.

Any other SDK server in the process keeps the SDK's own response.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp_types import RequestId
from pydantic_core import from_json
from starlette.types import Receive, Scope, Send

from gateway.http import sse_wire

PING_SECONDS = 15.0  # a quiet stream is pinged this long after it opened, and then as often
# A longer message is first told from its start, which is enough for a large result (its
# other members come first and are small): the rest of a large result is never decoded.
HEAD_CHARS = 4096
STREAM_ONLY_HEADERS = {b"content-type", b"content-length", b"cache-control", b"connection"}


@dataclass(frozen=True, slots=True)
class _Exchange:
    """What an answer needs to know of the exchange it answers."""

    request_id: RequestId | None  # None for a GET stream


_serving: ContextVar[_Exchange | None] = ContextVar("gateway_event_stream", default=None)


@contextlib.contextmanager
def serving(request_id: RequestId | None = None) -> Iterator[None]:
    """Within the block, SDK event streams are `GatewayEventStream`s (the gateway's
    exchanges); `request_id` is the POSTed request's, None for a GET."""
    token = _serving.set(_Exchange(request_id))
    try:
        yield
    finally:
        _serving.reset(token)


def event_source_response(
    *,
    content: AsyncIterable[Mapping[str, Any]],
    data_sender_callable: Callable[[], Awaitable[None]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> GatewayEventStream | None:
    """What the SDK's transport answers with for a gateway exchange; None outside one
    (the SDK's own response then)."""
    exchange = _serving.get()
    if exchange is None:
        return None
    return GatewayEventStream(
        content=content,
        data_sender_callable=data_sender_callable,
        headers=headers,
        request_id=exchange.request_id,
    )


def own_response(event: object, request_id: RequestId | None) -> str | None:
    """The JSON of an SDK event that can be a request's whole answer: the request's own
    response (not the answer to a cancelled request), with no event id to resume from."""
    if request_id is None or not isinstance(event, dict) or event.keys() != {"event", "data"}:
        return None
    data = event["data"]
    if event["event"] != "message" or not isinstance(data, str):
        return None
    try:
        message = _decoded(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" in message or "id" not in message:
        return None  # a request or notification of the server's, or no JSON-RPC response
    if message["id"] != request_id:
        return None
    if "result" in message:
        return data
    error = message.get("error")
    if isinstance(error, dict) and error.get("code") != REQUEST_CANCELLED:
        return data
    return None


def _decoded(data: str) -> object:
    """The JSON-RPC message in `data`: its members, or of a long one those at its start when
    they say what it is.

    Raises:
        ValueError: `data` is not JSON.
    """
    if len(data) > HEAD_CHARS:
        head = from_json(data[:HEAD_CHARS], allow_partial=True)
        # The names in a cut start are whole, and the values of all its members but the last.
        if isinstance(head, dict) and (
            "method" in head or ("result" in head and "id" in head and next(reversed(head)) != "id")
        ):
            return head
    return from_json(data)


class GatewayEventStream:
    """An ASGI response streaming the SDK's events, or answering a request POST with plain
    JSON when its first event is its own response; one task besides the SDK's data sender."""

    def __init__(
        self,
        *,
        content: AsyncIterable[Mapping[str, Any]],
        data_sender_callable: Callable[[], Awaitable[None]] | None = None,
        headers: Mapping[str, str] | None = None,
        request_id: RequestId | None = None,
        ping: float = PING_SECONDS,
    ) -> None:
        self.content = content
        self.data_sender = data_sender_callable
        self.headers = sse_wire.stream_headers(headers)
        self.request_id = request_id
        self.ping_seconds = ping
        self.started = False  # the status line and headers went out
        self.complete = False  # the last body part went out
        self._send_lock = asyncio.Lock()  # the pings and the events take turns

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        sender = loop.create_task(self.data_sender()) if self.data_sender is not None else None
        pinger: asyncio.Task | None = None

        def start_pinging() -> None:
            nonlocal pinger
            pinger = loop.create_task(self._keep_alive(send))

        timer = loop.call_later(self.ping_seconds, start_pinging) if self.ping_seconds else None
        try:
            if scope.get("method") != "POST":
                # A GET stream opens at once. The empty part is what makes daphne send the
                # status line and headers now: Twisted writes them with the first body write,
                # which would otherwise be the first event or ping (uvicorn sends nothing
                # for it).
                await self._send_part(send, b"")
            async for event in self.content:
                await self._send_event(send, event)
            # The SDK's data sender ends the stream after the response (or the session's).
            await self._send_part(send, b"", more=False)
            if sender is not None:
                await sender
        finally:
            if timer is not None:
                timer.cancel()
            for task in (pinger, sender):
                if task is not None and not task.done():
                    task.cancel()

    async def _send_event(self, send: Send, event: Mapping[str, Any]) -> None:
        """Send an event of the SDK's: as the whole answer when it can be (plain JSON),
        else as a part of the event stream."""
        async with self._send_lock:
            answer = None if self.started else own_response(event, self.request_id)
            if answer is None:
                await self._emit(send, sse_wire.encode_event(event))
            else:
                await self._answer_with_json(send, answer)

    async def _send_part(self, send: Send, body: bytes, *, more: bool = True) -> None:
        """Send a part of the event stream (starting it if due)."""
        async with self._send_lock:
            await self._emit(send, body, more=more)

    async def _emit(self, send: Send, body: bytes, *, more: bool = True) -> None:
        """With the send lock held: a part of the event stream, starting it if due; nothing
        once the answer is complete."""
        if self.complete:
            return
        if not self.started:
            self.started = True
            await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body", "body": body, "more_body": more})
        self.complete = not more

    async def _answer_with_json(self, send: Send, data: str) -> None:
        """With the send lock held: answer with `data` as one JSON body instead of a stream."""
        body = data.encode()
        headers = [(k, v) for k, v in self.headers if k not in STREAM_ONLY_HEADERS]
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        self.started = self.complete = True
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _keep_alive(self, send: Send) -> None:
        """A comment line every ping interval while the stream is open (opening it first if
        no event has come yet)."""
        with contextlib.suppress(Exception):  # the stream's own task notices a broken send
            while not self.complete:
                await self._send_part(send, sse_wire.encode_ping())
                await asyncio.sleep(self.ping_seconds)
