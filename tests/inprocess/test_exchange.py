"""Served exchanges on /mcp, in process: sessions, methods, JSON or event-stream answers,
request ids in flight, and the 503 of a worker on its way down."""

import logging

import pytest

from gateway.http import exchange
from gateway.runtime import running_gateway
from gateway.sessions.session import GatewaySession
from tests.inprocess.asgi_http import (
    INITIALIZE,
    LEGACY_VERSION,
    Exchange,
    call,
    hanging_call,
    once_the_id_is_free,
    open_session,
    post,
    request,
    request_headers,
    sdk_client,
)
from tests.inprocess.database import add_client

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]
LISTING = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


async def test_initialize_opens_a_session_and_its_tools_are_listed(echo_token):
    session = await open_session(echo_token)
    answer = await post(echo_token, LISTING, **session)
    assert answer.status == 200
    names = {tool["name"] for tool in answer.json()["result"]["tools"]}
    assert {"echo__echo", "echo__add", "echo__progress"} <= names


async def test_a_call_with_nothing_to_stream_gets_one_json_body(echo_token):
    session = await open_session(echo_token)
    answer = await post(echo_token, call(7, "echo__add", {"a": 2, "b": 3}), **session)
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["mcp-session-id"] == session["Mcp-Session-Id"]
    assert int(answer.headers["content-length"]) == len(answer.body)
    assert answer.json()["id"] == 7
    assert answer.json()["result"]["content"][0]["text"] == "5"


async def test_a_call_reporting_progress_stays_an_event_stream(echo_token):
    session = await open_session(echo_token)
    progress = call(8, "echo__progress", {"steps": 2}, progressToken="p1")
    answer = await post(echo_token, progress, **session)
    assert answer.headers["content-type"].startswith("text/event-stream")
    messages = answer.messages()
    assert [m.get("method") for m in messages[:-1]] == ["notifications/progress"] * 2
    assert [m["params"]["progressToken"] for m in messages[:-1]] == ["p1", "p1"]
    assert messages[-1]["id"] == 8
    assert messages[-1]["result"]["content"][0]["text"] == "done"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/explode"}', -32601),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 42}}', -32602),
    ],
)
async def test_what_the_sdk_refuses_gets_its_json_rpc_error(body, code):
    token = await add_client("alice")
    session = await open_session(token)
    answer = await post(token, body, **session)
    assert answer.status < 500
    assert answer.error["code"] == code


async def test_unknown_session_is_404_and_missing_session_is_400():
    token = await add_client("alice")
    unknown = await post(
        token, LISTING, Mcp_Session_Id="f" * 32, MCP_Protocol_Version=LEGACY_VERSION
    )
    missing = await post(token, LISTING, MCP_Protocol_Version=LEGACY_VERSION)
    assert unknown.status == 404
    assert missing.status == 400


async def test_another_clients_token_cannot_use_a_session():
    alice = await add_client("alice")
    bob = await add_client("bob")
    session = await open_session(alice)
    assert (await post(bob, LISTING, **session)).status == 404
    assert (await post(alice, LISTING, **session)).status == 200


async def test_delete_ends_the_session():
    token = await add_client("alice")
    session = await open_session(token)
    deleted = await request("DELETE", request_headers(token, **session))
    assert deleted.status == 200
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    assert (await post(token, ping, **session)).status == 404


async def test_wrong_accept_gets_406():
    token = await add_client("alice")
    answer = await post(token, INITIALIZE, Accept="text/html")
    assert answer.status == 406


async def test_a_request_id_already_in_flight_is_refused_and_the_first_keeps_its_stream(
    echo_token,
):
    session = await open_session(echo_token)
    first = Exchange("POST", request_headers(echo_token, **session))
    await first.send_json(hanging_call(7))
    await first.read_until(b"notifications/progress")
    second = await post(echo_token, call(7, "echo__echo", {"text": "again"}), **session)
    assert second.status == 400
    assert second.json()["id"] == 7
    assert second.error == {"code": -32600, "message": "request id 7 is already in flight"}
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "test over"},
    }
    assert (await post(echo_token, cancel, **session)).status == 202
    ended = await first.answer()
    assert ended.messages()[-1]["id"] == 7  # the first request's own stream got its end
    reused = await once_the_id_is_free(
        lambda: post(echo_token, call(7, "echo__echo", {"text": "again"}), **session)
    )
    assert reused.messages()[-1]["result"]["content"][0]["text"] == "again"


async def test_a_stopping_worker_turns_newcomers_away_with_503_and_retry_after(
    stdio_echo_token, settings, caplog
):
    settings.MCP_SHUTDOWN_GRACE_SECONDS = 0
    session = await open_session(stdio_echo_token)
    running = Exchange("POST", request_headers(stdio_echo_token, **session))
    await running.send_json(hanging_call(9))
    await running.read_until(b"notifications/progress")
    with caplog.at_level(logging.WARNING, logger="gateway.runtime"):
        await running_gateway().aclose()
    assert "1 request(s) still running after 0 s are cancelled" in caplog.text
    assert (await running.answer()).status == 200  # its stream was ended, not left open
    newcomer = await post(stdio_echo_token, INITIALIZE)
    in_session = await post(stdio_echo_token, call(10, "echo__echo", {"text": "hi"}), **session)
    for refused in (newcomer, in_session):
        assert refused.status == 503
        assert refused.headers["retry-after"] == "5"
        assert refused.error["message"] == "server is shutting down; retry shortly"


async def test_a_get_opens_the_sessions_event_stream_until_the_client_leaves():
    token = await add_client("alice")
    session = await open_session(token)
    listening = Exchange("GET", request_headers(token, Accept="text/event-stream", **session))
    await listening.send_body(b"")
    await listening.next_event()
    assert listening.status == 200
    assert listening.headers["content-type"].startswith("text/event-stream")
    await listening.leave()
    assert (
        await post(token, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, **session)
    ).status == 200


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_other_methods_are_not_allowed(method):
    token = await add_client("alice")
    session = await open_session(token)
    answer = await request(method, request_headers(token, **session), b"{}")
    assert answer.status == 405


async def test_a_client_leaving_a_running_call_ends_it(echo_token):
    session = await open_session(echo_token)
    running = Exchange("POST", request_headers(echo_token, **session))
    await running.send_json(hanging_call(6))
    await running.read_until(b"notifications/progress")
    await running.leave()
    again = await once_the_id_is_free(
        lambda: post(echo_token, call(6, "echo__echo", {"text": "back"}), **session)
    )
    assert again.messages()[-1]["result"]["content"][0]["text"] == "back"


async def test_an_unexpected_error_is_a_500_with_a_json_rpc_body(monkeypatch, caplog):
    token = await add_client("alice")

    async def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(exchange, "admit", broken)
    answer = await post(token, INITIALIZE)
    assert answer.status == 500
    assert answer.error == {"code": -32600, "message": "internal error; see the server log"}
    assert "unexpected error serving /mcp" in caplog.text


async def test_a_2026_client_calls_tools_without_a_session(echo_token):
    async with sdk_client(echo_token) as client:
        listed = await client.list_tools()
        added = await client.call_tool("echo__add", {"a": 20, "b": 22})
    assert "echo__add" in {tool.name for tool in listed.tools}
    assert added.content[0].text == "42"
    [session] = running_gateway().sessions.live()
    assert session.key.startswith("client-")


async def test_a_2026_call_finds_its_tool_schema_without_listing_the_tools(echo_token, monkeypatch):
    listings = []
    visible_tools = GatewaySession.visible_tools

    async def counted(session):
        listings.append(session.key)
        return await visible_tools(session)

    async with sdk_client(echo_token) as client:
        listed = await client.list_tools()
        monkeypatch.setattr(GatewaySession, "visible_tools", counted)
        added = await client.call_tool("echo__add", {"a": 1, "b": 2})
    assert added.content[0].text == "3"
    assert listings == []  # the SDK's check of Mcp-Param headers used the listed schema
    [session] = running_gateway().sessions.live()
    schema = next(tool.input_schema for tool in listed.tools if tool.name == "echo__add")
    assert session.listed_input_schema("echo__add") == schema
    assert session.listed_input_schema("echo__missing") is None
