"""The /mcp endpoint: a thin Channels consumer.

It collects the body (within the size limit), hands the exchange to `gateway.http.exchange`
(checks, authentication, the SDK or the owning worker) and stops when the client leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import anyio
from channels.consumer import AsyncConsumer, get_handler_name
from channels.exceptions import StopConsumer
from django.conf import settings

from gateway.http import errors as http_errors
from gateway.http.exchange import send_refusal, serve_exchange
from gateway.operations.metrics import families as metrics

logger = logging.getLogger(__name__)


# Exchanges still finishing after their consumer has gone (asyncio keeps only weak refs).
_finishing: set[asyncio.Task] = set()


class McpConsumer(AsyncConsumer):
    """One HTTP exchange on /mcp: collect the body, serve it, stop when the client leaves."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.body: list[bytes] = []
        self.size = 0
        self.task: asyncio.Task | None = None
        self.disconnected = asyncio.Event()
        self.response_started = False
        self.response_finished = False

    async def http_request(self, message: dict) -> None:
        chunk = message.get("body", b"")
        self.size += len(chunk)
        if self.size > settings.MCP_MAX_BODY_BYTES:
            limit = settings.MCP_MAX_BODY_BYTES
            metrics.count_http_refusal(413)
            await send_refusal(
                self.send, http_errors.refusal(413, f"request body over {limit} bytes")
            )
            raise StopConsumer()
        self.body.append(chunk)
        if not message.get("more_body"):
            self.task = asyncio.create_task(self.serve(b"".join(self.body)))
            _finishing.add(self.task)
            self.task.add_done_callback(_finishing.discard)

    async def __call__(self, scope: dict, receive, send) -> None:
        # Channels waits on a fresh task per message (`await_many_dispatch`, built to watch a
        # channel layer too). Replies from other workers use channels of their own, so the
        # client is the only source here: awaiting it is enough.
        self.scope = scope
        self.base_send = send
        with contextlib.suppress(StopConsumer):
            while True:
                await self.dispatch(await receive())

    async def dispatch(self, message: dict) -> None:
        # Channels closes stale DB connections before every message, a thread hop each
        # time; this consumer's database work runs in worker threads that do it themselves.
        handler = getattr(self, get_handler_name(message), None)
        if handler is not None:
            await handler(message)

    async def http_disconnect(self, message: dict) -> None:
        self.disconnected.set()
        # Daphne reports a disconnect as soon as a response is complete; only a stream the
        # client left early is cancelled (the SDK may still be settling the session).
        if self.task is not None and not self.task.done() and not self.response_finished:
            self.task.cancel()
        raise StopConsumer()

    async def serve(self, body: bytes) -> None:
        receive = self.receive_for_sdk(body)
        try:
            await serve_exchange(self.scope, body, receive, self.send_tracked)
        except asyncio.CancelledError:
            raise
        except anyio.ClosedResourceError:
            # The session ended (DELETE, expiry) while this request was on its way in.
            logger.info("request for a session that was closing")
            if not self.response_started:
                await send_refusal(self.send, http_errors.refusal(404, "Session not found"))
        except Exception:
            logger.exception("unexpected error serving /mcp")
            if not self.response_started:
                refusal = http_errors.refusal(500, "internal error; see the server log")
                await send_refusal(self.send, refusal)

    async def send_tracked(self, message: dict) -> None:
        """Send to the client, noting when the response has begun."""
        if message["type"] == "http.response.start":
            self.response_started = True
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            self.response_finished = True
        await self.send(message)

    def receive_for_sdk(self, body: bytes):
        """An ASGI receive: the whole body once, then wait for the client to go away."""
        delivered = False

        async def receive() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await self.disconnected.wait()
            return {"type": "http.disconnect"}

        return receive
