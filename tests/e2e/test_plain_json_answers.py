"""Request POSTs answer with plain JSON unless something streams before the result."""

import json

import pytest

from tests.e2e.test_gateway_http import open_session

pytestmark = pytest.mark.anyio


def sse_messages(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


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


async def test_a_call_reporting_progress_stays_an_event_stream(live):
    _, headers = await open_session(live, live.tokens["alice"])
    params = {
        "name": "everything__trigger-long-running-operation",
        "arguments": {"duration": 1, "steps": 2},
        "_meta": {"progressToken": "p1"},
    }
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url,
            json={"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": params},
            headers=headers,
        )
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(response.text)
    assert [m.get("method") for m in messages[:-1]] == ["notifications/progress"] * 2
    assert messages[-1]["id"] == 8 and "result" in messages[-1]
