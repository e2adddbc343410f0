"""The gateway's answers to the SDK's Streamable HTTP request POSTs and GET streams.

The SDK answers every request POST (so progress, logging and requests from an upstream can
reach the client during a call) and the session's GET stream with sse-starlette's
`EventSourceResponse`. For the exchanges the gateway serves (`serving`), it builds a
`GatewayEventStream` instead, which sends the same wire with less work:

- A request POST whose first event is the request's own response is answered with that
  response as one `application/json` body, which the transport allows and which costs
  less to send and to read (most calls have nothing else to say). When anything else
  comes first, or nothing comes for the ping interval, the answer is an event stream.
- The answer to a cancelled request stays a stream: the 2025-era transport writes
  `Request cancelled` only to end the stream of a request its client has given up on, and
  a client that has already closed its session can drop a late event but not a late JSON
  body (the SDK's client raises `BrokenResourceError` into its task group on one).
- One task (plus the SDK's data sender) does it all. The consumer cancels an exchange
  whose client leaves, so nothing listens for the disconnect; the gateway ends every
  session before the server stops, so nothing watches for shutdown; and a timer starts
  the keep-alive pings only once a stream has been quiet for the ping interval.

Any other SDK server in the process keeps the SDK's own response.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from mcp.server.streamable_http import REQUEST_CANCELLED
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.event import ensure_bytes
from starlette.types import Message, Receive, Scope, Send

_serving: ContextVar[bool] = ContextVar("gateway_event_stream", default=False)

# A response or error object as the SDK serialises it (keys in model order). Anything
# else, a request or notification from the server included, keeps the stream.
RESPONSE = re.compile(r'\{(?:"jsonrpc":"2\.0",)?"id":(?:"(?:[^"\\]|\\.)*"|-?\d+),"(result|error)":')
CANCELLED = re.compile(rf'\{{"code":{REQUEST_CANCELLED}[,}}]')  # right after "error":
STREAM_ONLY_HEADERS = {b"content-type", b"content-length", b"cache-control", b"connection"}


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """Within the block, SDK responses are `GatewayEventStream`s (the gateway's exchanges)."""
    token = _serving.set(True)
    try:
        yield
    finally:
        _serving.reset(token)


def event_source_response(*args: Any, **kwargs: Any) -> EventSourceResponse:
    """What the SDK's transport builds where it would build an `EventSourceResponse`."""
    kind = GatewayEventStream if _serving.get() else EventSourceResponse
    return kind(*args, **kwargs)


def lone_response(event: object) -> str | None:
    """The JSON of an SDK event that can be a request's whole answer: the request's own
    response (not the answer to a cancelled request), with no event id to resume from."""
    if not isinstance(event, dict) or event.keys() != {"event", "data"}:
        return None
    data = event["data"]
    if event["event"] != "message" or not isinstance(data, str):
        return None
    response = RESPONSE.match(data)
    if response is None:
        return None
    if response[1] == "error" and CANCELLED.match(data, response.end()):
        return None
    return data


class GatewayEventStream(EventSourceResponse):
    """An `EventSourceResponse` that answers a request POST with plain JSON when its only
    event is its response, and runs on one task besides the SDK's data sender."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        self._send_lock = asyncio.Lock()  # the pings and the events take turns
        self._response_started = False
        write = self.data_sender_callable
        sender = loop.create_task(write()) if write is not None else None
        pinger: asyncio.Task | None = None

        def start_pinging() -> None:
            nonlocal pinger
            pinger = loop.create_task(self._keep_alive(send))

        timer = loop.call_later(self.ping_interval, start_pinging) if self.ping_interval else None
        try:
            if scope.get("method") != "POST":
                # A GET stream opens at once. The empty part is what makes daphne send the
                # status line and headers now: Twisted writes them with the first body write,
                # which would otherwise be the first event or ping (uvicorn sends nothing
                # for it).
                await self._send_part(send, b"")
            async for event in self.body_iterator:
                await self._send_event(send, event)
            # The SDK's data sender ends the stream after the response (or the session's).
            if not self._response_complete:
                await self._send_part(send, b"", more=False)
            if sender is not None:
                await sender
        finally:
            if timer is not None:
                timer.cancel()
            for task in (pinger, sender):
                if task is not None and not task.done():
                    task.cancel()
        if self.background is not None:
            await self.background()

    async def _send_event(self, send: Send, event: object) -> None:
        """Send an event of the SDK's: as the whole answer when it can be (plain JSON),
        else as a part of the event stream."""
        async with self._send_lock:
            answer = None if self._response_started else lone_response(event)
            if answer is None:
                await self._emit(send, ensure_bytes(event, self.sep))
            else:
                await self._answer_with_json(send, answer)

    async def _send_part(self, send: Send, body: bytes, *, more: bool = True) -> None:
        """Send a part of the event stream (starting it if due)."""
        async with self._send_lock:
            await self._emit(send, body, more=more)

    async def _emit(self, send: Send, body: bytes, *, more: bool = True) -> None:
        """With the send lock held: a part of the event stream, starting it if due; nothing
        once the answer is complete."""
        if self._response_complete:
            return
        if not self._response_started:
            self._response_started = True
            start = {"type": "http.response.start", "status": self.status_code}
            await send({**start, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": body, "more_body": more})
        self._response_complete = not more

    async def _answer_with_json(self, send: Send, data: str) -> None:
        """With the send lock held: answer with `data` as one JSON body instead of a stream."""
        body = data.encode()
        headers = [(k, v) for k, v in self.raw_headers if k.lower() not in STREAM_ONLY_HEADERS]
        headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        self._response_started = self._response_complete = True
        start: Message = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _keep_alive(self, send: Send) -> None:
        """A comment line every ping interval while the stream is open (opening it first if
        no event has come yet)."""
        with contextlib.suppress(Exception):  # the stream's own task notices a broken send
            while not self._response_complete:
                ping = ServerSentEvent(comment=f"ping - {datetime.now(UTC)}", sep=self.sep)
                await self._send_part(send, ensure_bytes(ping, self.sep))
                await asyncio.sleep(self.ping_interval)
