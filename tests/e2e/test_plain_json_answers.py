"""Request POSTs answer with plain JSON unless something streams before the result.

Through daphne here; the streamed case is in tests/inprocess/test_exchange.py.
"""

import pytest

from tests.e2e.test_gateway_http import open_session

pytestmark = pytest.mark.anyio


async def test_a_call_with_nothing_to_stream_gets_one_json_body(live):
    session_id, headers = await open_session(live, live.tokens["alice"])
    call = {"name": "echohttp__add", "arguments": {"a": 2, "b": 3}}
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url,
            json={"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call},
            headers=headers,
        )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["mcp-session-id"] == session_id
    assert int(response.headers["content-length"]) == len(response.content)
    answer = response.json()
    assert answer["id"] == 7
    assert answer["result"]["content"][0]["text"] == "5"
