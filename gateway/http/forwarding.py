"""Serving one client from several workers: requests travel to the worker that owns them.

A handshake-era session lives in the worker that created it; a 2026-07-28 client's
gateway session (its indexed responses) lives in the worker that first served it.
With REDIS_URL set, each worker listens on its own channel, owners are recorded in
Redis, and a worker that receives a request it does not own forwards the HTTP exchange
over the channel layer and relays the answer (streams included) back to the client.
Without Redis there is one worker and nothing to forward.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from redis.exceptions import RedisError

from gateway.http.heartbeat import Heartbeat
from gateway.http.owner_directory import OwnerDirectory
from gateway.http.patient_send import ChannelStaysFull, send_patiently

logger = logging.getLogger(__name__)

FORWARD = "mcp.forward"
RELAY = "mcp.relay"
DISCONNECT = "mcp.disconnect"


class Forwarding:
    """This worker's inbox for forwarded exchanges and its way to forward others."""

    def __init__(self) -> None:
        self._serve: Any = None  # gateway.http.exchange.serve_exchange, handed in by start()
        self.layer = get_channel_layer()
        self.heartbeat_period = settings.FORWARD_HEARTBEAT_SECONDS
        self.timeout = settings.FORWARD_TIMEOUT_SECONDS
        self.heartbeat = Heartbeat(settings.REDIS_URL, self.heartbeat_period)
        self.directory = OwnerDirectory(
            settings.REDIS_URL,
            settings.MCP_SESSION_IDLE_TIMEOUT,
            settings.OWNERS_KEY_PREFIX,
            self.heartbeat,
        )
        self.channel: str | None = None
        self._inbox: asyncio.Task | None = None
        self._starting = asyncio.Lock()
        self._serving: dict[str, asyncio.Task] = {}  # forwarded exchanges, by id

    async def start(self, serve: Any) -> str:
        """Listen for forwarded exchanges (served with `serve`); return this worker's channel."""
        self._serve = serve
        if self.channel is None:
            async with self._starting:  # the first requests of a worker arrive together
                if self.channel is None:
                    await self._begin_listening()
        return self.channel

    async def _begin_listening(self) -> None:
        # One prefix for every channel of this process: channels_redis serves them all
        # with one blocking read, which several prefixes would take turns at.
        channel = await self.layer.new_channel()
        await asyncio.to_thread(self.heartbeat.start, channel)  # alive before it claims
        self._inbox = asyncio.create_task(self._listen(channel), name="forwarding-inbox")
        self.channel = channel

    async def _listen(self, channel: str) -> None:
        while True:
            try:
                message = await self.layer.receive(channel)
            except (RedisError, OSError):  # Redis away for a moment: listen once it is back
                logger.warning("forwarding inbox: receive failed; retrying", exc_info=True)
                await asyncio.sleep(self.heartbeat_period)
                continue
            exchange = message["exchange"]
            if message["type"] == FORWARD:
                task = asyncio.create_task(self._serve_forwarded(message))
                self._serving[exchange] = task
                task.add_done_callback(lambda _task, key=exchange: self._serving.pop(key, None))
            elif message["type"] == DISCONNECT:
                # The client left before the answer was complete: end the exchange, as the
                # consumer does for its own clients.
                task = self._serving.get(exchange)
                if task is not None:
                    task.cancel()

    async def _serve_forwarded(self, message: dict) -> None:
        reply = message["reply"]
        delivered = False

        async def receive() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": message["body"], "more_body": False}
            await asyncio.get_running_loop().create_future()  # until the exchange is cancelled
            return {"type": "http.disconnect"}

        async def send(event: dict) -> None:
            relayed = {"type": RELAY, "event": event}
            await send_patiently(self.layer, reply, relayed, within=self.timeout)

        scope = {**message["scope"], "headers": [tuple(h) for h in message["scope"]["headers"]]}
        try:
            await self._serve(scope, message["body"], receive, send, forwarded=True)
        except ChannelStaysFull:
            # The relaying worker stopped reading its replies (it is gone, or stuck).
            logger.warning("a forwarded exchange's relay stayed full; its answer is dropped")
        except Exception:
            logger.exception("forwarded exchange failed")

    async def forward(self, owner: str, scope: dict, body: bytes, reply: str) -> str:
        """Send an exchange to its owner; returns the exchange id for `disconnect`.

        Raises:
            ChannelStaysFull: the owner's inbox stayed full for the forwarding timeout.
        """
        exchange = uuid.uuid4().hex
        portable = {
            "type": "http",
            "method": scope["method"],
            "path": scope["path"],
            "query_string": scope.get("query_string", b""),
            "headers": [list(h) for h in scope["headers"]],
            "http_version": scope.get("http_version", "1.1"),
            "scheme": scope.get("scheme", "http"),
        }
        message = {
            "type": FORWARD,
            "exchange": exchange,
            "reply": reply,
            "scope": portable,
            "body": body,
        }
        await send_patiently(self.layer, owner, message, within=self.timeout)
        return exchange

    async def disconnect(self, owner: str, exchange: str) -> None:
        """Tell the owner the client left (best effort: a full inbox drops the notice)."""
        notice = {"type": DISCONNECT, "exchange": exchange}
        with contextlib.suppress(ChannelStaysFull):
            await send_patiently(self.layer, owner, notice, within=self.heartbeat_period)

    async def withdraw(self) -> None:
        """Stopping: hand back this worker's claims at once (their requests are then served
        where they arrive: a session is unknown there, a client is taken over)."""
        if self.channel is not None:
            await self.directory.withdraw(self.channel)

    async def stop_beating(self) -> None:
        """This worker is gone for the others from now on (relays waiting on it end)."""
        await asyncio.to_thread(self.heartbeat.stop)

    async def aclose(self) -> None:
        if self._inbox is not None:
            self._inbox.cancel()
        await self.stop_beating()
        for task in list(self._serving.values()):
            task.cancel()
        await self.directory.aclose()
