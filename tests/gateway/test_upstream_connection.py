"""UpstreamConnection over stdio against the SDK-built fixture server."""

from __future__ import annotations

import os
import signal

import anyio
import mcp_types as types
import pytest

from gateway.upstreams import ListKind, UpstreamConnection, UpstreamError, UpstreamHooks
from tests.fixtures.concurrency import all_running_at_once
from tests.fixtures.processes import child_pids, process_state
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture
async def echo():
    connection = UpstreamConnection(fixture_spec(timeout=10))
    yield connection
    await connection.aclose()


async def test_it_starts_lazily_on_first_use_and_lists_tools(echo):
    assert echo.state == "idle"
    tools = await echo.list_tools()
    assert {"echo", "add", "sleep", "hang", "crash"} <= {t.name for t in tools}
    assert echo.state == "running"


async def test_it_exposes_server_info_instructions_and_capabilities(echo):
    await echo.start()
    assert echo.server_info is not None and echo.server_info.name == "echo-fixture"
    assert echo.instructions == "Fixture server: echo things back."
    assert echo.capabilities is not None and echo.capabilities.tools is not None
    assert echo.protocol_version == "2025-11-25"


async def test_it_speaks_the_handshake_era_by_default(echo):
    await echo.ping()
    assert echo.protocol_version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


async def test_calls_reuse_one_session(echo):
    assert text_of(await echo.call_tool("add", {"a": 2, "b": 3})) == "5"
    pid_before = child_pids()
    assert text_of(await echo.call_tool("echo", {"text": "again"})) == "again"
    assert child_pids() == pid_before


async def test_resources_templates_and_prompts_are_listed_and_read(echo):
    assert [r.uri for r in await echo.list_resources()] == ["fixture://hello"]
    templates = await echo.list_resource_templates()
    assert [t.uri_template for t in templates] == ["fixture://items/{item}"]
    read = await echo.read_resource("fixture://items/7")
    assert isinstance(read.contents[0], types.TextResourceContents)
    assert read.contents[0].text == "item 7"
    assert [p.name for p in await echo.list_prompts()] == ["greet"]
    prompt = await echo.get_prompt("greet", {"name": "Ada"})
    assert "Ada" in str(prompt.messages[0].content)


async def test_concurrent_calls_run_at_the_same_time(echo):
    await echo.start()
    await all_running_at_once(echo)
    assert text_of(await echo.call_tool("echo", {"text": "after"})) == "after"


async def test_a_hanging_tool_times_out_and_the_connection_stays_usable(echo):
    with anyio.fail_after(5):
        with pytest.raises(UpstreamError) as caught:
            await echo.call_tool("hang", {}, timeout=0.5)
    assert caught.value.kind == "timeout"
    assert text_of(await echo.call_tool("echo", {"text": "still here"})) == "still here"
    assert echo.state == "running"


async def test_progress_notifications_reach_the_per_call_callback(echo):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await echo.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    assert text_of(result) == "done"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_a_tool_error_is_a_result_not_an_exception(echo):
    result = await echo.call_tool("fail", {"message": "nope"})
    assert result.is_error


async def test_the_process_dying_mid_call_fails_that_call_and_the_next_call_restarts_it(echo):
    before = child_pids()
    await echo.start()
    (pid,) = child_pids() - before
    running = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        running.set()

    async def doomed_call() -> None:
        with pytest.raises(UpstreamError) as caught:
            await echo.call_tool("hang", {"announce": True}, progress_callback=on_progress)
        assert caught.value.kind == "crashed"

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(doomed_call)
            await running.wait()
            os.kill(pid, signal.SIGKILL)
    assert text_of(await echo.call_tool("echo", {"text": "reborn"})) == "reborn"
    assert pid not in child_pids()


async def test_a_tool_that_exits_the_process_is_reported_as_crashed(echo):
    with pytest.raises(UpstreamError) as caught:
        await echo.call_tool("crash", {})
    assert caught.value.kind == "crashed"
    assert text_of(await echo.call_tool("add", {"a": 1, "b": 1})) == "2"


async def test_aclose_leaves_no_child_processes():
    before = child_pids()
    connection = UpstreamConnection(fixture_spec())
    await connection.start()
    (pid,) = child_pids() - before
    await connection.aclose()
    assert child_pids() == before
    assert process_state(pid) is None  # reaped, not a zombie
    with pytest.raises(UpstreamError) as caught:
        await connection.list_tools()
    assert caught.value.kind == "closed"


async def test_list_changed_notifications_reach_the_hook():
    changed = anyio.Event()
    kinds: list[tuple[str, ListKind]] = []

    async def on_list_changed(upstream: str, kind: ListKind) -> None:
        kinds.append((upstream, kind))
        changed.set()

    connection = UpstreamConnection(fixture_spec(), UpstreamHooks(on_list_changed=on_list_changed))
    try:
        await connection.call_tool("add_tool", {"name": "fresh"})
        with anyio.fail_after(5):
            await changed.wait()
        assert kinds == [("echo", "tools")]
        assert "fresh" in {t.name for t in await connection.list_tools()}
    finally:
        await connection.aclose()


async def test_logging_messages_reach_the_hook():
    logged = anyio.Event()
    messages: list[object] = []

    async def on_log(upstream: str, params: types.LoggingMessageNotificationParams) -> None:
        messages.append((upstream, params.level, params.data))
        logged.set()

    connection = UpstreamConnection(fixture_spec(), UpstreamHooks(on_log=on_log))
    try:
        await connection.call_tool("log", {"message": "careful"})
        with anyio.fail_after(5):
            await logged.wait()
        assert messages == [("echo", "warning", "careful")]
    finally:
        await connection.aclose()


async def test_sampling_without_a_hook_is_answered_with_an_error_instead_of_hanging(echo):
    with anyio.fail_after(5), pytest.raises(UpstreamError) as caught:
        await echo.call_tool("sample", {"prompt": "hi"})
    # The fixture lets the SDK's error escape the tool, so it comes back as a JSON-RPC error.
    assert caught.value.kind == "rejected"
    assert "Sampling not supported" in caught.value.message


async def test_sampling_requests_reach_the_hook():
    async def sampling(
        upstream: str, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"{upstream} sampled"),
            model="test-model",
        )

    connection = UpstreamConnection(fixture_spec(), UpstreamHooks(sampling=sampling))
    try:
        assert text_of(await connection.call_tool("sample", {"prompt": "hi"})) == "echo sampled"
    finally:
        await connection.aclose()


async def test_an_upstream_that_only_speaks_2026_07_28_is_reached_anyway():
    changed = anyio.Event()

    async def on_list_changed(upstream: str, kind: ListKind) -> None:
        changed.set()

    connection = UpstreamConnection(
        fixture_spec("echo_server.py", "--modern"), UpstreamHooks(on_list_changed=on_list_changed)
    )
    try:
        assert text_of(await connection.call_tool("echo", {"text": "modern"})) == "modern"
        assert connection.protocol_version == "2026-07-28"
        assert connection.instructions == "Fixture server: echo things back."
        await connection.ping()
        await connection.call_tool("add_tool", {"name": "fresh"})
        with anyio.fail_after(5):
            await changed.wait()
    finally:
        await connection.aclose()


async def test_env_and_cwd_are_passed_to_the_process(tmp_path):
    connection = UpstreamConnection(fixture_spec(env={"FIXTURE_VALUE": "v-123"}, cwd=str(tmp_path)))
    try:
        assert text_of(await connection.call_tool("env", {"name": "FIXTURE_VALUE"})) == "v-123"
        assert text_of(await connection.call_tool("cwd", {})) == str(tmp_path)
    finally:
        await connection.aclose()
