"""A client's disconnect cancels its exchange only when it left before having all of the
response: a complete answer (its last part sent, or as many bytes as its Content-Length
said) lets the exchange finish what it does after answering."""

from __future__ import annotations

import asyncio

import pytest

from gateway.http import consumers
from gateway.http.consumers import McpConsumer

pytestmark = pytest.mark.anyio


async def exchange_after(start_headers: list, monkeypatch) -> tuple[bool, list[dict]]:
    """Run a consumer whose exchange sends a response start with `start_headers`, is told
    the client disconnected, then sends its empty last part and finishes its work; whether
    that work got done, and what reached the client."""
    started, disconnected, done = asyncio.Event(), asyncio.Event(), asyncio.Event()
    sent: list[dict] = []

    async def serve_exchange(scope, body, receive, send) -> None:
        await send({"type": "http.response.start", "status": 202, "headers": start_headers})
        started.set()
        await disconnected.wait()
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        done.set()  # e.g. the SDK taking a client's answer after its 202

    monkeypatch.setattr(consumers, "serve_exchange", serve_exchange)

    async def send(message: dict) -> None:
        sent.append(message)

    messages = iter([{"type": "http.request", "body": b"{}", "more_body": False}])

    async def receive() -> dict:
        message = next(messages, None)
        if message is not None:
            return message
        await started.wait()
        return {"type": "http.disconnect"}

    consumer = McpConsumer({"type": "http", "method": "POST", "headers": []}, send)
    await consumer.run(receive)
    disconnected.set()
    await asyncio.wait_for(asyncio.gather(consumer.task, return_exceptions=True), 5)
    return done.is_set(), sent


async def test_an_exchange_whose_client_has_the_whole_answer_is_not_cancelled(monkeypatch):
    finished, sent = await exchange_after([(b"content-length", b"0")], monkeypatch)
    assert finished
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


async def test_an_answer_the_client_left_part_way_through_is_cancelled(monkeypatch):
    finished, sent = await exchange_after([(b"content-type", b"text/event-stream")], monkeypatch)
    assert not finished
    assert [m["type"] for m in sent] == ["http.response.start"]
