"""A lighter event stream for the SDK's Streamable HTTP answers served by the gateway.

The SDK answers every request POST (and the GET stream) with sse-starlette's
`EventSourceResponse`, which runs five tasks per response: the stream itself, keep-alive
pings, a shutdown watcher, the SDK's data sender and a disconnect listener. In the gateway
three of them only cost time (about a third of a small call's CPU in the worker):

- the consumer cancels an exchange whose client leaves before its answer is complete, so
  nothing needs to listen for the disconnect;
- the gateway ends every session (and so every stream) before the server stops, so nothing
  needs to watch for shutdown;
- a keep-alive ping is due only once a stream has been quiet for the ping interval, so a
  timer starts the pinging task then, instead of a task per response from the start.

`GatewayEventStream` keeps the rest of `EventSourceResponse` (headers, event encoding,
pings, the closing empty body). Only exchanges the gateway serves use it (`serving`);
any other SDK server in the process keeps the SDK's own response.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.event import ensure_bytes
from starlette.types import Receive, Scope, Send

_serving: ContextVar[bool] = ContextVar("gateway_event_stream", default=False)


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


class GatewayEventStream(EventSourceResponse):
    """An `EventSourceResponse` run by one task (plus the SDK's data sender); pings start
    only when the stream has been quiet for the ping interval."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        pinger: asyncio.Task | None = None

        def start_pinging() -> None:
            nonlocal pinger
            pinger = loop.create_task(self._keep_alive(send))

        timer = loop.call_later(self.ping_interval, start_pinging) if self.ping_interval else None
        try:
            async with anyio.create_task_group() as tasks:
                if self.data_sender_callable is not None:
                    tasks.start_soon(self.data_sender_callable)
                await self._stream_response(send)
                tasks.cancel_scope.cancel()
        finally:
            self.active = False
            if timer is not None:
                timer.cancel()
            if pinger is not None:
                pinger.cancel()
        if self.background is not None:
            await self.background()

    async def _keep_alive(self, send: Send) -> None:
        """A comment line every ping interval while the stream is open."""
        with contextlib.suppress(Exception):  # the stream's own task notices a broken send
            while self.active:
                comment = f"ping - {datetime.now(UTC)}"
                ping = ensure_bytes(ServerSentEvent(comment=comment, sep=self.sep), self.sep)
                async with self._send_lock:
                    if not self.active:
                        return
                    message = {"type": "http.response.body", "body": ping, "more_body": True}
                    await self._send_with_timeout(send, message)
                await anyio.sleep(self.ping_interval)
