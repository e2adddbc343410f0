"""UpstreamConnection over Streamable HTTP and legacy SSE against the fixture server."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest

from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamSpec
from tests.fixtures.concurrency import all_running_at_once
from tests.fixtures.http_server import run_http_server, stop_process

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def http_server():
    with run_http_server() as server:
        yield server


@pytest.fixture
async def http_upstream(http_server):
    spec = UpstreamSpec(
        name="web", transport="http", url=http_server.url, headers={"X-Test": "1"}, timeout=10
    )
    connection = UpstreamConnection(spec)
    yield connection
    await connection.aclose()


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_tools_are_listed_and_called_over_streamable_http(http_upstream):
    assert "echo" in {t.name for t in await http_upstream.list_tools()}
    assert text_of(await http_upstream.call_tool("echo", {"text": "over http"})) == "over http"
    assert http_upstream.instructions == "Fixture server: echo things back."


async def test_results_larger_than_one_mebibyte_arrive_whole(http_upstream):
    result = await http_upstream.call_tool("big_text", {"size": 3 * 1024 * 1024})
    assert len(text_of(result)) == 3 * 1024 * 1024


async def test_progress_arrives_over_http(http_upstream):
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    await http_upstream.call_tool("progress", {"steps": 2}, progress_callback=on_progress)
    assert seen == [1, 2]


async def test_concurrent_http_calls_run_at_the_same_time(http_upstream):
    await http_upstream.start()
    await all_running_at_once(http_upstream)
    assert text_of(await http_upstream.call_tool("add", {"a": 2, "b": 2})) == "4"


async def test_a_hanging_http_tool_times_out_and_the_connection_stays_usable(http_upstream):
    with anyio.fail_after(5), pytest.raises(UpstreamError) as caught:
        await http_upstream.call_tool("hang", {}, timeout=0.5)
    assert caught.value.kind == "timeout"
    assert text_of(await http_upstream.call_tool("add", {"a": 2, "b": 2})) == "4"


async def test_tools_are_called_over_legacy_sse():
    with run_http_server(transport="sse", path="/sse") as server:
        connection = UpstreamConnection(UpstreamSpec(name="old", transport="sse", url=server.url))
        try:
            assert text_of(await connection.call_tool("echo", {"text": "sse"})) == "sse"
        finally:
            await connection.aclose()


async def test_an_http_server_that_dies_fails_the_call_and_is_retried_on_next_use():
    with run_http_server() as server:
        spec = UpstreamSpec(name="dying", transport="http", url=server.url, timeout=5)
        connection = UpstreamConnection(spec)
        try:
            await connection.start()
            with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
                await connection.call_tool("crash", {})
            assert caught.value.kind == "crashed"
            stop_process(server.process)
            with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
                await connection.call_tool("echo", {"text": "anyone?"})
            assert caught.value.kind in ("unavailable", "crashed")
        finally:
            await connection.aclose()
