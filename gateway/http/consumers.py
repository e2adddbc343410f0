"""The /mcp endpoint: a thin ASGI application that Channels' URLRouter routes to.

It collects the body (within the size limit), hands the exchange to `gateway.http.exchange`
(checks, authentication, the SDK or the owning worker) and stops when the client leaves.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import anyio
from django.conf import settings
from starlette.types import Receive, Scope, Send

from gateway.http import errors as http_errors
from gateway.http.asgi_headers import header
from gateway.http.exchange import serve_exchange
from gateway.operations.metrics import families as metrics

logger = logging.getLogger(__name__)


def _content_length(headers) -> int | None:
    """A response's Content-Length (ASGI headers), or None without a valid one."""
    value = header(headers, b"content-length")
    return int(value) if value is not None and value.isdigit() else None


# Exchanges still finishing after their consumer has gone (asyncio keeps only weak refs).
_finishing: set[asyncio.Task] = set()


class McpConsumer:
    """One HTTP exchange on /mcp: collect the body, serve it, stop when the client leaves.

    A plain ASGI application rather than a Channels consumer: those wait on a fresh task per
    message (`await_many_dispatch`, built to watch a channel layer too) and close stale
    database connections before each one, a thread hop each time. Replies from other
    workers use channels of their own (`forwarding.py`) and this exchange's database work
    runs in worker threads that close their connections themselves, so the client is the
    only source of messages: awaiting it in a loop is enough.
    """

    def __init__(self, scope: Scope, send: Send) -> None:
        self.scope = scope
        self.send = send
        self.body: list[bytes] = []
        self.size = 0
        self.task: asyncio.Task | None = None
        self.disconnected = asyncio.Event()
        self.response_started = False
        self.response_finished = False  # the client has all of the response
        self.bytes_due: int | None = None  # of the response's Content-Length, when it has one

    @classmethod
    def as_asgi(cls) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """The ASGI application: each exchange gets a consumer of its own."""

        async def application(scope: Scope, receive: Receive, send: Send) -> None:
            await cls(scope, send).run(receive)

        return application

    async def run(self, receive: Receive) -> None:
        """Handle the client's messages until the body is refused or the client is gone."""
        while True:
            message = await receive()
            if message["type"] == "http.request" and not await self.http_request(message):
                return
            if message["type"] == "http.disconnect":
                self.http_disconnect()
                return

    async def http_request(self, message: dict) -> bool:
        """Take a piece of the body; whether the exchange goes on (false once refused)."""
        chunk = message.get("body", b"")
        self.size += len(chunk)
        if self.size > settings.MCP_MAX_BODY_BYTES:
            limit = settings.MCP_MAX_BODY_BYTES
            metrics.count_http_refusal(413)
            await http_errors.send_refusal(
                self.send, http_errors.refusal(413, f"request body over {limit} bytes")
            )
            return False
        self.body.append(chunk)
        if not message.get("more_body"):
            self.task = asyncio.create_task(self.serve(b"".join(self.body)))
            _finishing.add(self.task)
            self.task.add_done_callback(_finishing.discard)
        return True

    def http_disconnect(self) -> None:
        """The client is gone, or its response is complete."""
        self.disconnected.set()
        # Daphne reports a disconnect as soon as a response is complete, and a client that
        # has all of a response may reuse or close its connection before the exchange has
        # sent its (empty) last part; only a response the client left early is cancelled
        # (the SDK may still be settling the session: it takes a client's answer to an
        # upstream's request after its 202, and a forwarded answer is cancelled with this).
        if self.task is not None and not self.task.done() and not self.response_finished:
            self.task.cancel()

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
                await http_errors.send_refusal(
                    self.send, http_errors.refusal(404, "Session not found")
                )
        except Exception:
            logger.exception("unexpected error serving /mcp")
            if not self.response_started:
                refusal = http_errors.refusal(500, "internal error; see the server log")
                await http_errors.send_refusal(self.send, refusal)

    async def send_tracked(self, message: dict) -> None:
        """Send to the client, noting when the response has begun and when the client has
        all of it: its last part is sent, or as many bytes as its Content-Length says (a
        202's headers are the whole of it; under uvicorn they reach the client at once)."""
        if message["type"] == "http.response.start":
            self.response_started = True
            self.bytes_due = _content_length(message.get("headers", ()))
        elif message["type"] == "http.response.body":
            if self.bytes_due is not None:
                self.bytes_due -= len(message.get("body", b""))
            if not message.get("more_body"):
                self.response_finished = True
        if self.bytes_due is not None and self.bytes_due <= 0:
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
