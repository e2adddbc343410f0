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
import logging
import uuid
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)

KEY_PREFIX = "localrouter:owner:"
FORWARD = "mcp.forward"
RELAY = "mcp.relay"
DISCONNECT = "mcp.disconnect"


class OwnerDirectory:
    """owner key (session id or 'client-<id>') -> the channel of the worker that owns it."""

    def __init__(self, url: str, ttl_seconds: int) -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._ttl = ttl_seconds

    async def owner(self, key: str) -> str | None:
        value = await self._redis.get(KEY_PREFIX + key)
        return value.decode() if value else None

    async def claim(self, key: str, channel: str) -> str:
        """Record this worker as owner unless another one is; return the owner."""
        claimed = await self._redis.set(KEY_PREFIX + key, channel, ex=self._ttl, nx=True)
        if claimed:
            return channel
        await self._redis.expire(KEY_PREFIX + key, self._ttl)
        return await self.owner(key) or channel

    async def release(self, key: str, channel: str) -> None:
        if await self.owner(key) == channel:
            await self._redis.delete(KEY_PREFIX + key)

    async def aclose(self) -> None:
        await self._redis.aclose()


class Forwarding:
    """This worker's inbox for forwarded exchanges and its way to forward others."""

    def __init__(self) -> None:
        self._serve: Any = None  # gateway.http.exchange.serve_exchange, handed in by start()
        self.layer = get_channel_layer()
        ttl = int(settings.MCP_SESSION_IDLE_TIMEOUT) + 60
        self.directory = OwnerDirectory(settings.REDIS_URL, ttl)
        self.channel: str | None = None
        self._inbox: asyncio.Task | None = None
        self._serving: dict[str, asyncio.Task] = {}  # forwarded exchanges, by id

    async def start(self, serve: Any) -> str:
        """Listen for forwarded exchanges (served with `serve`); return this worker's channel."""
        self._serve = serve
        if self.channel is None:
            # One prefix for every channel of this process: channels_redis serves them all
            # with one blocking read, which several prefixes would take turns at.
            self.channel = await self.layer.new_channel()
            self._inbox = asyncio.create_task(self._listen(), name="forwarding-inbox")
        return self.channel

    async def _listen(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
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
            await self.layer.send(reply, {"type": RELAY, "event": event})

        scope = {**message["scope"], "headers": [tuple(h) for h in message["scope"]["headers"]]}
        try:
            await self._serve(scope, message["body"], receive, send, forwarded=True)
        except Exception:
            logger.exception("forwarded exchange failed")

    async def forward(self, owner: str, scope: dict, body: bytes, reply: str) -> str:
        """Send an exchange to its owner; returns the exchange id for `disconnect`."""
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
        await self.layer.send(
            owner,
            {
                "type": FORWARD,
                "exchange": exchange,
                "reply": reply,
                "scope": portable,
                "body": body,
            },
        )
        return exchange

    async def disconnect(self, owner: str, exchange: str) -> None:
        await self.layer.send(owner, {"type": DISCONNECT, "exchange": exchange})

    async def aclose(self) -> None:
        if self._inbox is not None:
            self._inbox.cancel()
        for task in list(self._serving.values()):
            task.cancel()
        await self.directory.aclose()
