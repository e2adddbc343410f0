"""The gateway's answers to SDK request POSTs and GET streams: plain JSON when the response
is all there is to say, otherwise the SDK's event stream, pinged when quiet."""

import asyncio
import json

import anyio
import pytest
from sse_starlette import EventSourceResponse

from gateway.http.event_stream import (
    GatewayEventStream,
    event_source_response,
    lone_response,
    serving,
)

pytestmark = pytest.mark.anyio
RESPONSE = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'
PROGRESS = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'
CANCELLED = '{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"Request cancelled"}}'


async def never_disconnects() -> dict:
    await asyncio.get_running_loop().create_future()
    return {"type": "http.disconnect"}


def message(data: str) -> dict:
    return {"event": "message", "data": data}


async def answered(
    *events: dict, pause: float = 0, ping: float = 15, method: str = "POST"
) -> list[dict]:
    """What a GatewayEventStream sends when the SDK writes `events`, the first after
    `pause` seconds."""
    writer, reader = anyio.create_memory_object_stream(0)
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def data_sender() -> None:
        async with writer:
            await anyio.sleep(pause)
            for event in events:
                await writer.send(event)

    with reader:
        response = GatewayEventStream(
            content=reader,
            data_sender_callable=data_sender,
            ping=ping,
            headers={"mcp-session-id": "abc"},
        )
        scope = {"type": "http", "method": method}
        await response(scope, never_disconnects, send)
    return sent


def headers(start: dict) -> dict[bytes, bytes]:
    return dict(start["headers"])


async def test_a_lone_response_is_answered_as_json():
    start, body = await answered(message(RESPONSE))
    assert start["status"] == 200
    assert headers(start)[b"content-type"] == b"application/json"
    assert headers(start)[b"content-length"] == str(len(RESPONSE)).encode()
    assert headers(start)[b"mcp-session-id"] == b"abc"
    assert b"cache-control" not in headers(start)
    assert body == {"type": "http.response.body", "body": RESPONSE.encode(), "more_body": False}
    assert json.loads(body["body"])["result"] == {"content": []}


async def test_a_notification_first_keeps_the_event_stream():
    start, progress, response, end = await answered(message(PROGRESS), message(RESPONSE))
    assert headers(start)[b"content-type"].startswith(b"text/event-stream")
    assert progress["body"] == f"event: message\r\ndata: {PROGRESS}\r\n\r\n".encode()
    assert progress["more_body"] is True
    assert response["body"] == f"event: message\r\ndata: {RESPONSE}\r\n\r\n".encode()
    assert end == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_the_answer_to_a_cancelled_request_stays_a_stream():
    start, event, end = await answered(message(CANCELLED))
    assert headers(start)[b"content-type"].startswith(b"text/event-stream")
    assert b"Request cancelled" in event["body"]
    assert end["more_body"] is False


async def test_a_quiet_request_opens_its_stream_and_is_pinged_until_its_response_comes():
    sent = await answered(message(RESPONSE), pause=0.35, ping=0.1)
    assert headers(sent[0])[b"content-type"].startswith(b"text/event-stream")
    assert [part["type"] for part in sent].count("http.response.start") == 1
    bodies = [part["body"] for part in sent[1:]]
    assert len([body for body in bodies if body.startswith(b": ping")]) >= 2
    assert bodies[-2] == f"event: message\r\ndata: {RESPONSE}\r\n\r\n".encode()
    assert bodies[-1] == b""
    assert [part.get("more_body") for part in sent[1:]][-1] is False


async def test_a_get_stream_opens_at_once_even_for_a_response():
    start, opened, event, end = await answered(message(RESPONSE), method="GET")
    assert headers(start)[b"content-type"].startswith(b"text/event-stream")
    # An empty part: daphne sends the status line and headers only with a body write.
    assert opened == {"type": "http.response.body", "body": b"", "more_body": True}
    assert event["body"].startswith(b"event: message")
    assert end["body"] == b""


async def test_a_stream_the_sdk_ends_without_an_event_still_ends_its_answer():
    start, end = await answered()
    assert headers(start)[b"content-type"].startswith(b"text/event-stream")
    assert end == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_only_exchanges_the_gateway_serves_get_its_stream():
    writer, reader = anyio.create_memory_object_stream(0)
    with writer, reader:
        outside = event_source_response(content=reader)
        with serving():
            inside = event_source_response(content=reader)
    assert type(outside) is EventSourceResponse
    assert type(inside) is GatewayEventStream


@pytest.mark.parametrize(
    "data",
    [
        '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}',
        '{"jsonrpc":"2.0","id":"a\\"b","error":{"code":-32602,"message":"no"}}',
        '{"jsonrpc":"2.0","id":-3,"error":{"code":-32801,"message":"no"}}',
    ],
)
def test_the_requests_own_response_can_be_the_whole_answer(data):
    assert lone_response(message(data)) == data


@pytest.mark.parametrize(
    "event",
    [
        message(PROGRESS),
        message('{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}'),
        message(CANCELLED),
        message('{"jsonrpc":"2.0","id":-3,"error":{"code":-32800}}'),
        {**message(RESPONSE), "id": "1"},  # resumable: an event store holds it
        {"event": "other", "data": RESPONSE},
        {"data": "", "id": "1"},  # a priming event
        b": ping\r\n\r\n",
    ],
)
def test_anything_else_keeps_the_stream(event):
    assert lone_response(event) is None
