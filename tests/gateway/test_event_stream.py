"""The gateway's answers to SDK request POSTs and GET streams: plain JSON when the response
is all there is to say, otherwise the SDK's event stream, pinged when quiet."""

import asyncio
import json
import re

import anyio
import pytest
from sse_starlette import EventSourceResponse
from sse_starlette.event import ensure_bytes

from gateway.http import sse_wire
from gateway.http.event_stream import (
    HEAD_CHARS,
    GatewayEventStream,
    event_source_response,
    own_response,
    serving,
)
from gateway.seams.mcp_sdk_seam import use_event_stream_response

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
    *events: dict, pause: float = 0, ping: float = 15, method: str = "POST", request_id=1
) -> list[dict]:
    """What a GatewayEventStream sends when the SDK writes `events` for request
    `request_id`, the first after `pause` seconds."""
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
            request_id=request_id,
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
    start, event, end = await answered(message(CANCELLED), request_id=7)
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
    sdk_builds = use_event_stream_response(event_source_response)  # as the host does
    writer, reader = anyio.create_memory_object_stream(0)
    with writer, reader:
        outside = sdk_builds(content=reader)
        with serving(1):
            inside = sdk_builds(content=reader)
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
    assert own_response(message(data), json.loads(data)["id"]) == data


@pytest.mark.parametrize(
    ("event", "request_id"),
    [
        (message(PROGRESS), 1),
        (message('{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}'), 1),
        (message(CANCELLED), 7),
        (message('{"jsonrpc":"2.0","id":-3,"error":{"code":-32800}}'), -3),
        ({**message(RESPONSE), "id": "1"}, 1),  # resumable: an event store holds it
        ({"event": "other", "data": RESPONSE}, 1),
        ({"data": "", "id": "1"}, 1),  # a priming event
        (b": ping\r\n\r\n", 1),
    ],
)
def test_anything_else_keeps_the_stream(event, request_id):
    assert own_response(event, request_id) is None


@pytest.mark.parametrize(
    "data",
    [
        '{"result":{"content":[]},"id":1,"jsonrpc":"2.0"}',
        '{ "jsonrpc": "2.0", "id": 1, "result": { "content": [] } }',
        '{"error":{"message":"no","code":-32602},"jsonrpc":"2.0","id":1}',
    ],
)
def test_the_response_is_known_by_its_members_not_their_order_or_spacing(data):
    assert own_response(message(data), 1) == data


@pytest.mark.parametrize(
    "data",
    [
        '{"error":{"message":"Request cancelled","code":-32800},"id":1,"jsonrpc":"2.0"}',
        '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "Request cancelled"}}',
    ],
)
def test_a_cancelled_requests_answer_stays_a_stream_whatever_its_key_order(data):
    assert own_response(message(data), 1) is None


def test_another_requests_response_is_not_this_ones_answer():
    assert own_response(message(RESPONSE), 2) is None
    assert own_response(message(RESPONSE), "1") is None


LONG_TEXT = "x" * (3 * HEAD_CHARS)


@pytest.mark.parametrize(
    ("data", "whole_answer"),
    [
        ('{"jsonrpc":"2.0","id":1,"result":{"text":"' + LONG_TEXT + '"}}', True),
        ('{"result":{"text":"' + LONG_TEXT + '"},"jsonrpc":"2.0","id":1}', True),
        ('{"jsonrpc":"2.0","id":2,"result":{"text":"' + LONG_TEXT + '"}}', False),
        ('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"' + LONG_TEXT + '"}}', True),
        ('{"jsonrpc":"2.0","id":1,"error":{"message":"' + LONG_TEXT + '","code":-32800}}', False),
        (
            '{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"text":"'
            + LONG_TEXT
            + '"}}',
            False,
        ),
    ],
)
def test_a_long_message_is_told_apart_like_a_short_one(data, whole_answer):
    assert own_response(message(data), 1) == (data if whole_answer else None)


def test_a_long_response_is_told_from_its_start_without_decoding_the_rest():
    # Past its first members, this response is not even JSON: only its start is decoded.
    data = '{"jsonrpc":"2.0","id":1,"result":{"text":"' + LONG_TEXT + '"'
    assert own_response(message(data), 1) == data


@pytest.mark.parametrize(
    "event",
    [
        message(RESPONSE),
        {"id": "e1", "event": "message", "data": PROGRESS},
        {"id": "7", "data": "", "retry": 1000},  # a priming event
        {"event": "line\nbreak", "id": "a\r\nb", "data": "one\r\ntwo\rthree\nfour\u2028five"},
        {"data": ""},
        {},
    ],
)
def test_events_are_written_as_the_sdks_own_response_writes_them(event):
    assert sse_wire.encode_event(event) == ensure_bytes(event, "\r\n")


@pytest.mark.parametrize(
    "given",
    [
        {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": "text/event-stream",
            "mcp-session-id": "abc",
        },
        {"mcp-session-id": "abc"},
        None,
    ],
)
def test_stream_headers_are_the_sdks_own_responses(given):
    writer, reader = anyio.create_memory_object_stream(0)
    with writer, reader:
        sdk_own = EventSourceResponse(content=reader, headers=given)
    assert sse_wire.stream_headers(given) == sdk_own.raw_headers


def test_a_ping_is_a_comment_line():
    assert re.fullmatch(rb": ping - [^\r\n]+\r\n\r\n", sse_wire.encode_ping())
