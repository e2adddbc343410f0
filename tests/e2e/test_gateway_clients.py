"""SDK clients of both protocol eras use several real upstreams through the gateway at once."""

import anyio
import mcp_types as types
import pytest

from tests.e2e.live import ToolsChanged

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28", "auto"]
ERAS = ["legacy", "2026-07-28"]  # handshake era, and the era without sessions


@pytest.mark.parametrize("mode", MODES)
async def test_tools_of_three_real_upstreams_are_listed_and_called(live, mode):
    async with live.client("alice", mode=mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"everything__echo", "time__get_current_time", "echohttp__echo"} <= names
        everything = await client.call_tool("everything__echo", {"message": "hello"})
        assert "hello" in everything.content[0].text
        now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert '"timezone": "UTC"' in now.content[0].text
        echoed = await client.call_tool("echohttp__echo", {"text": "over http"})
        assert echoed.content[0].text == "over http"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_instructions_name_the_upstreams_and_the_unavailable_one(live, mode):
    async with live.client("alice", mode=mode) as client:
        assert client.instructions is not None
        assert "Upstream servers: echohttp, everything, faulty, files, time." in client.instructions
        assert "Unavailable: broken" in client.instructions


async def test_a_client_sees_only_its_upstreams_and_cannot_call_others(live):
    async with live.client("bob") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"time__get_current_time", "time__convert_time", "IndexSearch", "IndexRead"}
        with pytest.raises(Exception, match="Unknown tool: everything__echo"):
            await client.call_tool("everything__echo", {"message": "x"})
        with pytest.raises(Exception, match="Unknown tool: nothing__here"):
            await client.call_tool("nothing__here", {})


async def test_denied_tools_are_not_listed_and_calls_to_them_are_refused(live):
    async with live.client("carol") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "echohttp__echo" in names
        assert not {n for n in names if n.startswith("echohttp__add")}
        with pytest.raises(Exception, match="Unknown tool: echohttp__add"):
            await client.call_tool("echohttp__add", {"a": 1, "b": 2})


@pytest.mark.parametrize("mode", ERAS)
async def test_progress_from_a_long_running_tool_reaches_the_client(live, mode):
    updates: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total))

    async with live.client("alice", mode=mode) as client:
        result = await client.call_tool(
            "everything__trigger-long-running-operation",
            {"duration": 1, "steps": 4},
            progress_callback=on_progress,
        )
    assert not result.is_error
    assert [p for p, _ in updates] == [1, 2, 3, 4]
    assert all(total == 4 for _, total in updates)


async def test_resources_and_prompts_pass_through(live):
    async with live.client("alice") as client:
        resources = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "fixture://hello" in resources
        read = await client.read_resource("fixture://hello")
        assert read.contents[0].text == "hello from the fixture"
        templated = await client.read_resource("fixture://items/42")
        assert templated.contents[0].text == "item 42"
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert "echohttp__greet" in prompts
        prompt = await client.get_prompt("echohttp__greet", {"name": "Ada"})
        assert "Ada" in prompt.messages[0].content.text


async def test_an_upstream_list_change_reaches_the_client_on_its_stream(live):
    changed = ToolsChanged()

    async with live.client("alice", message_handler=changed) as client:
        await client.list_tools()
        await client.call_tool("echohttp__add_tool", {"name": "fresh_tool"})
        await changed.wait()
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "echohttp__fresh_tool" in names


@pytest.mark.parametrize("mode", ERAS)
async def test_an_upstreams_sampling_request_reaches_the_calling_client(live, mode):
    async def sample(context, params: types.CreateMessageRequestParams):
        asked = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"model says: {asked}"),
            model="test-model",
        )

    async with live.client("alice", mode=mode, sampling_callback=sample) as client:
        result = await client.call_tool("echohttp__sample", {"prompt": "2+2?"})
    assert not result.is_error
    assert result.content[0].text == "model says: 2+2?"


@pytest.mark.parametrize("mode", ERAS)
async def test_sampling_for_a_client_without_it_fails_fast_with_a_clear_error(live, mode):
    async with live.client("alice", mode=mode) as client:
        with anyio.fail_after(10):
            result = await client.call_tool("echohttp__sample", {"prompt": "2+2?"})
    assert result.is_error
    assert "does not support sampling" in result.content[0].text


@pytest.mark.parametrize("mode", ERAS)
async def test_upstream_log_messages_reach_the_client(live, mode):
    received = anyio.Event()
    seen = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.append(params)
        received.set()

    # 2026-07-28 requests opt in to log messages (and at which level); legacy sessions get all.
    async with live.client("alice", mode=mode, logging_callback=on_log, log_level="info") as client:
        await client.call_tool("echohttp__log", {"message": "disk almost full"})
        with anyio.fail_after(10):
            await received.wait()
    assert seen[0].data == "disk almost full"
    assert seen[0].logger.startswith("echohttp/")


async def test_argument_completion_reaches_the_prompts_upstream(live):
    async with live.client("alice") as client:
        reference = types.PromptReference(type="ref/prompt", name="everything__completable-prompt")
        result = await client.complete(reference, {"name": "department", "value": "E"})
    assert result.completion.values == ["Engineering"]


async def test_a_cancelled_call_leaves_the_session_usable(live):
    async with live.client("alice") as client:
        with anyio.move_on_after(0.5):
            await client.call_tool("echohttp__sleep", {"seconds": 30})
        assert (await client.call_tool("echohttp__echo", {"text": "after"})).content[
            0
        ].text == "after"
