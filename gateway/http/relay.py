"""Relaying an exchange to the worker that owns it, and its answer back to the client.

The owner's answer comes over a reply channel of this worker. While it is awaited, the
owner's heartbeat is checked once per heartbeat period, so a quiet owner is never taken
for a gone one (a call may run for minutes) and a gone one is noticed within seconds:

- the owner's inbox stays full, or it does not begin answering within the forwarding
  timeout (a live owner begins within seconds; an overloaded one is waited on, as its own
  clients wait): 503 with Retry-After (it is alive; the session is not lost);
- the owner stops beating before it answers: the session died with it (404, the client
  opens a new one); a 2026-07-28 client's request gets 503 (the next one is served here);
- the owner stops beating in the middle of an answer: the answer is ended there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from redis.exceptions import RedisError

from gateway.http import errors as http_errors
from gateway.http.forwarding import Forwarding
from gateway.http.patient_send import ChannelStaysFull
from gateway.operations.metrics import families as metrics

logger = logging.getLogger(__name__)
Send = Callable[[dict], Awaitable[None]]


def _lost(session: bool) -> tuple:
    if session:
        return http_errors.refusal(404, "Session not found")
    return http_errors.owner_busy()


async def _alive(forwarding: Forwarding, owner: str) -> bool:
    """Whether the owner still beats; while Redis does not answer, it is taken to."""
    try:
        return await forwarding.directory.alive(owner)
    except (RedisError, OSError):
        logger.warning("Redis did not answer whether a worker is alive", exc_info=True)
        return True


async def relay(
    forwarding: Forwarding, owner: str, scope: dict, body: bytes, send: Send, *, session: bool
) -> None:
    """Have `owner` serve the exchange and pass its answer through (`session`: the request
    names a handshake-era session, which is lost if its owner is)."""
    layer = forwarding.layer
    reply = await layer.new_channel()
    try:
        exchange = await forwarding.forward(owner, scope, body, reply)
    except ChannelStaysFull:
        logger.warning("the worker owning this session is not taking requests; 503")
        metrics.count_forwarded("busy")
        await http_errors.send_refusal(send, http_errors.owner_busy())
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + forwarding.timeout
    started = False
    receiving: asyncio.Future | None = None
    try:
        while True:
            if receiving is None:
                receiving = asyncio.ensure_future(layer.receive(reply))
            done, _ = await asyncio.wait({receiving}, timeout=forwarding.heartbeat_period)
            if done:
                event = receiving.result()["event"]
                receiving = None
                await send(event)
                started = True
                if event["type"] == "http.response.body" and not event.get("more_body"):
                    metrics.count_forwarded("relayed")
                    return
            elif not await _alive(forwarding, owner):
                logger.warning("the worker owning this exchange is gone")
                metrics.count_forwarded("gone")
                if started:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                else:
                    await http_errors.send_refusal(send, _lost(session))
                return
            elif not started and loop.time() > deadline:
                logger.warning("the worker owning this session did not answer in time; 503")
                metrics.count_forwarded("busy")
                await asyncio.shield(forwarding.disconnect(owner, exchange))
                await http_errors.send_refusal(send, http_errors.owner_busy())
                return
    except asyncio.CancelledError:
        await asyncio.shield(forwarding.disconnect(owner, exchange))
        raise
    finally:
        if receiving is not None:
            receiving.cancel()
