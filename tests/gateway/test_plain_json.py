"""Which SDK event-stream chunks can go out as a plain JSON answer."""

import pytest

from gateway.plain_json import lone_response


def event(data: bytes) -> bytes:
    return b"event: message\r\ndata: " + data + b"\r\n\r\n"


@pytest.mark.parametrize(
    "data",
    [
        b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}',
        b'{"jsonrpc":"2.0","id":"a\\"b","error":{"code":-32602,"message":"no"}}',
    ],
)
def test_a_lone_response_event_is_answered_as_json(data):
    assert lone_response(event(data)) == data


@pytest.mark.parametrize(
    "body",
    [
        event(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'),
        event(b'{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}'),
        event(b'{"jsonrpc":"2.0","id":7,"result":{}}') + event(b'{"jsonrpc":"2.0","id":8}'),
        # the answer that ends a cancelled request's stream: its client may be gone
        event(b'{"jsonrpc":"2.0","id":7,"error":{"code":-32800,"message":"Request cancelled"}}'),
        b"id: 1\r\ndata: \r\n\r\n",  # a priming event
        b": ping\r\n\r\n",
        b"",
    ],
)
def test_anything_else_keeps_the_stream(body):
    assert lone_response(body) is None
