"""Requests the gateway cannot serve get the protocol's error, never a 500 or a traceback."""

import json

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.test_gateway_http import open_session, rpc_error
from tests.fixtures.servers.echo_server import LOCKED_CODE, LOCKED_ITEM

pytestmark = pytest.mark.anyio


class LogSince:
    """What the gateway logged since this object was made."""

    def __init__(self, live) -> None:
        self.live = live
        self.start = len(live.log())

    def text(self) -> str:
        return self.live.log()[self.start :]


@pytest.mark.parametrize(("mode", "code"), [("legacy", -32002), ("2026-07-28", -32602)])
async def test_reading_an_unknown_resource_names_the_uri_with_the_eras_code(live, mode, code):
    log = LogSince(live)
    async with live.client("alice", mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("fixture://no-such-thing")
        assert (await client.read_resource("fixture://hello")).contents[0].text
    assert raised.value.code == code
    assert raised.value.message == "Resource not found: fixture://no-such-thing"
    assert raised.value.data == {"uri": "fixture://no-such-thing"}
    assert "Traceback" not in log.text()


async def post(live, headers: dict, body: bytes):
    async with live.http(live.tokens["alice"]) as http:
        return await http.post(
            live.url, content=body, headers={**headers, "Content-Type": "application/json"}
        )


# Both bracket kinds and depths: tests/inprocess/test_refusals.py.
@pytest.mark.parametrize(("depth", "opening", "closing"), [(100_000, b'{"a":', b"}")])
async def test_a_deeply_nested_body_gets_400_without_a_traceback(live, depth, opening, closing):
    _, headers = await open_session(live, live.tokens["alice"])
    log = LogSince(live)
    nested = opening * depth + b"1" + closing * depth
    body = b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": ' + nested + b"}}"
    response = await post(live, headers, body)
    assert response.status_code == 400
    assert rpc_error(response)["code"] == -32700
    assert "nested deeper than" in rpc_error(response)["message"]
    assert "Traceback" not in log.text()


def tool_call(request_id, name: str, arguments: dict, **meta) -> dict:
    params = {"name": name, "arguments": arguments, **({"_meta": meta} if meta else {})}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_a_request_id_already_in_flight_is_refused_and_the_first_still_answers(live):
    _, headers = await open_session(live, live.tokens["alice"])
    slow = tool_call(
        7,
        "everything__trigger-long-running-operation",
        {"duration": 2, "steps": 4},
        progressToken="slow",
    )
    quick = tool_call(7, "everything__echo", {"message": "again"})
    async with live.http(live.tokens["alice"]) as http:
        with anyio.fail_after(30):
            async with http.stream("POST", live.url, json=slow, headers=headers) as first:
                lines = first.aiter_lines()
                async for line in lines:
                    if line.startswith("data:") and "notifications/progress" in line:
                        break  # the first request is running upstream
                second = await http.post(live.url, json=quick, headers=headers)
                rest = [line async for line in lines]
            reused = await http.post(live.url, json=quick, headers=headers)
    assert second.status_code == 400
    assert second.json()["id"] == 7
    assert second.json()["error"] == {
        "code": -32600,
        "message": "request id 7 is already in flight",
    }
    [answer] = [
        json.loads(line[5:]) for line in rest if line.startswith("data:") and '"result"' in line
    ]
    assert answer["id"] == 7
    assert "Long running operation completed" in answer["result"]["content"][0]["text"]
    assert "again" in rpc_error_or_result(reused)["content"][0]["text"]


def rpc_error_or_result(response) -> dict:
    """The result of a POST answered as plain JSON or as an event stream."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()["result"]
    data = next(line[5:] for line in response.text.splitlines() if line.startswith("data:"))
    return json.loads(data)["result"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"queries": ["echo"], "limit": 0}, "limit must be at least 1, got 0"),
        ({"queries": "echo"}, "queries must be a non-empty list of strings"),
    ],
)
async def test_index_search_refuses_what_its_schema_excludes(live, arguments, message):
    async with live.client("alice") as client:
        [search] = [t for t in (await client.list_tools()).tools if t.name == "IndexSearch"]
        result = await client.call_tool("IndexSearch", arguments)
    assert search.input_schema["properties"]["queries"]["type"] == "array"
    assert search.input_schema["properties"]["limit"]["minimum"] == 1
    assert result.is_error
    assert message in result.content[0].text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_upstreams_own_error_reaches_the_client_with_its_code_and_data(live, mode):
    async with live.client("alice", mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(f"fixture://items/{LOCKED_ITEM}")
    assert raised.value.code == LOCKED_CODE
    assert raised.value.data == {"item": LOCKED_ITEM, "retry_after": 30}
    assert raised.value.message == ("Upstream 'echohttp' rejected the request: the item is locked")
