"""What a worker admits while it serves and while it stops."""

import asyncio

import pytest

from gateway.http.envelope import inspect_body
from gateway.http.inflight import DuplicateRequestId, InFlightRequests, ServerStopping

pytestmark = pytest.mark.anyio


def test_a_clients_answer_to_a_server_request_is_marked_as_one():
    answer = inspect_body(b'{"jsonrpc": "2.0", "id": "s-1", "result": {"content": []}}')
    refusal = inspect_body(b'{"jsonrpc": "2.0", "id": "s-2", "error": {"code": -1}}')
    request = inspect_body(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}')
    assert answer.is_response and refusal.is_response
    assert not request.is_response and request.request_id == 3


async def test_stopping_refuses_new_exchanges_but_lets_answers_to_running_calls_in():
    inflight = InFlightRequests()
    with inflight.serving("s", 1):  # a call waiting on the client's sampling answer
        closing = asyncio.create_task(inflight.close(grace_seconds=5))
        await asyncio.sleep(0)
        with pytest.raises(ServerStopping), inflight.serving("s", 2):
            pass
        with pytest.raises(ServerStopping), inflight.serving("s", None):  # a GET, a notification
            pass
        with inflight.serving("s", None, answer=True):
            pass  # the sampling answer reaches the SDK
        assert not closing.done()
    assert await closing == 0


def test_a_reused_id_is_refused_while_the_first_runs():
    inflight = InFlightRequests()
    with inflight.serving("s", 7), pytest.raises(DuplicateRequestId), inflight.serving("s", 7):
        pass
