"""Both HTTP servers LocalRouter runs under (`LOCALROUTER_SERVER`): daphne and uvicorn.

A real SDK call through uvicorn in both protocol eras, with an upstream's progress,
sampling request and log message reaching the client during a call (the other e2e tests
check these under daphne), and, under both servers, a response stream the client leaves
ends with it (the server reports the disconnect). Under daphne that check failed in every
run until `McpConsumer` stopped using Channels' `await_many_dispatch`. It waits until
the server has closed its side of the left connection before stopping the server: one
run in 26 had sent SIGTERM before daphne read the client's close, and a shutdown that
begins first leaves the exchange to the grace period (0 of 30 runs fail with the wait).
"""

import signal
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import mcp_types as types
import pytest

from gateway.http.event_stream import PING_SECONDS
from tests.e2e.live import running_gateway, stdio_upstream
from tests.e2e.test_gateway_http import open_session

pytestmark = pytest.mark.anyio


def gateway_on(server: str, tmp_path, **env: str):
    return running_gateway(
        tmp_path,
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "alice"}],
        LOCALROUTER_SERVER=server,
        **env,
    )


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_sdk_call_through_uvicorn(tmp_path, mode):
    with gateway_on("uvicorn", tmp_path) as live:
        async with live.client("alice", mode=mode) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            result = await client.call_tool("echo__echo", {"text": "through uvicorn"})
        assert "echo__echo" in tools
        assert not result.is_error
        assert result.content[0].text == "through uvicorn"
        async with live.http(None) as http:
            page = await http.get(live.url.removesuffix("/mcp") + "/admin/login/")
        assert page.headers["server"] == "uvicorn"
        assert "Traceback" not in live.log()


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_upstream_talks_to_the_client_during_a_call_through_uvicorn(tmp_path, mode):
    progress: list[float] = []
    logged: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def sample(context, params: types.CreateMessageRequestParams):
        asked = params.messages[0].content.text
        reply = types.TextContent(type="text", text=f"model says: {asked}")
        return types.CreateMessageResult(role="assistant", content=reply, model="test-model")

    with gateway_on("uvicorn", tmp_path) as live:
        async with live.client(
            "alice", mode=mode, sampling_callback=sample, logging_callback=on_log, log_level="info"
        ) as client:
            with anyio.fail_after(30):
                stepped = await client.call_tool(
                    "echo__progress", {"steps": 3}, progress_callback=on_progress
                )
                sampled = await client.call_tool("echo__sample", {"prompt": "2+2?"})
                await client.call_tool("echo__log", {"message": "disk almost full"})
    assert not stepped.is_error
    assert progress == [1, 2, 3]
    assert sampled.content[0].text == "model says: 2+2?"
    assert logged == ["disk almost full"]


def half_closed(port: int) -> int:
    """Connections to `port` that their client has closed and the server not yet (TCP
    CLOSE_WAIT, from /proc/net)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            count += int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "08"
    return count


@pytest.mark.parametrize("server", ["uvicorn", "daphne"])
async def test_a_stream_the_client_leaves_ends(tmp_path, server):
    """The exchange of a call whose client went ends: shutdown finds no request still
    running (otherwise it would wait out the grace period and say so in the log)."""
    with gateway_on(server, tmp_path, LOCALROUTER_SHUTDOWN_GRACE_SECONDS="30") as live:
        _, headers = await open_session(live, live.tokens["alice"])
        params = {
            "name": "echo__hang",
            "arguments": {"announce": True},
            "_meta": {"progressToken": "left"},
        }
        request = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}
        async with live.http(live.tokens["alice"]) as http:
            with anyio.fail_after(30):
                async with http.stream("POST", live.url, json=request, headers=headers) as stream:
                    assert stream.headers["content-type"].startswith("text/event-stream")
                    async for line in stream.aiter_lines():
                        if line.startswith("data:") and "notifications/progress" in line:
                            break  # the call runs upstream; leave without its answer
        # The server has seen the client go (not only the shutdown that follows).
        with anyio.fail_after(10):
            while half_closed(urlsplit(live.url).port):
                await anyio.sleep(0.05)
        live.process.send_signal(signal.SIGTERM)
        with anyio.fail_after(60):
            await anyio.to_thread.run_sync(live.process.wait)
        log = live.log()
        assert "still running after" not in log
        assert "Traceback" not in log
        assert live.process.returncode == 0


@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
async def test_a_get_stream_sends_its_status_and_headers_at_once(tmp_path, server):
    """Not with its first ping or event: under daphne the headers used to wait for the first
    body write, 15 s later, and clients with a shorter timeout gave up."""
    with gateway_on(server, tmp_path) as live:
        _, headers = await open_session(live, live.tokens["alice"])
        async with live.http(live.tokens["alice"]) as http:
            with anyio.fail_after(PING_SECONDS / 3):
                async with http.stream("GET", live.url, headers=headers) as stream:
                    assert stream.status_code == 200
                    assert stream.headers["content-type"].startswith("text/event-stream")
                    assert stream.headers["mcp-session-id"] == headers["Mcp-Session-Id"]


@pytest.mark.parametrize("server", ["daphne", "uvicorn"])
async def test_the_server_log_never_names_a_token_sent_in_the_query_string(tmp_path, server):
    """Each server's access log names the request target masked."""
    target = "/mcp?token=lr_QUERYSECRET&api_key=KEYSECRET&page=2"
    with gateway_on(server, tmp_path) as live:
        async with live.http(None) as http:
            refused = await http.post(live.url + target.removeprefix("/mcp"), json={})
        assert refused.status_code == 401
        masked = {
            "daphne": '"POST /mcp?token=***&api_key=***&page=2" 401',
            "uvicorn": '"POST /mcp?token=***&api_key=***&page=2 HTTP/1.1" 401',
        }[server]
        with anyio.fail_after(10):  # written as the request ends (daphne) or is answered
            while masked not in live.log():
                await anyio.sleep(0.05)
    log = live.log()  # the whole output, up to the server's exit
    assert "QUERYSECRET" not in log and "KEYSECRET" not in log
