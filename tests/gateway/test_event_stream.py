"""The gateway's event stream for SDK answers: same wire as the SDK's, pings when quiet."""

import asyncio

import anyio
import pytest
from sse_starlette import EventSourceResponse

from gateway.event_stream import GatewayEventStream, event_source_response, serving

pytestmark = pytest.mark.anyio
SCOPE = {"type": "http", "method": "POST"}


async def never_disconnects() -> dict:
    await asyncio.get_running_loop().create_future()
    return {"type": "http.disconnect"}


async def streamed(pause: float, ping: float) -> list[dict]:
    """What a GatewayEventStream sends for one event that comes after `pause` seconds."""
    writer, reader = anyio.create_memory_object_stream(0)
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def data_sender() -> None:
        async with writer:
            await anyio.sleep(pause)
            await writer.send({"event": "message", "data": '{"jsonrpc":"2.0","id":1}'})

    with reader:
        response = GatewayEventStream(content=reader, data_sender_callable=data_sender, ping=ping)
        await response(SCOPE, never_disconnects, send)
    return sent


async def test_an_event_goes_out_as_the_sdk_writes_it_and_the_stream_ends():
    sent = await streamed(pause=0, ping=15)
    start, event, end = sent
    assert start["type"] == "http.response.start"
    assert dict(start["headers"])[b"content-type"].startswith(b"text/event-stream")
    assert event["body"] == b'event: message\r\ndata: {"jsonrpc":"2.0","id":1}\r\n\r\n'
    assert event["more_body"] is True
    assert end == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_a_quiet_stream_is_pinged_until_its_event_comes():
    sent = await streamed(pause=0.35, ping=0.1)
    bodies = [message["body"] for message in sent[1:]]
    pings = [body for body in bodies if body.startswith(b": ping")]
    assert len(pings) >= 2
    assert bodies[-2].startswith(b"event: message")
    assert bodies[-1] == b""


async def test_only_exchanges_the_gateway_serves_get_its_stream():
    writer, reader = anyio.create_memory_object_stream(0)
    with writer, reader:
        outside = event_source_response(content=reader)
        with serving():
            inside = event_source_response(content=reader)
    assert type(outside) is EventSourceResponse
    assert type(inside) is GatewayEventStream
