"""A crashing, hanging or missing upstream fails only its own calls, within its timeout."""

import anyio
import pytest

from tests.e2e.conftest import UPSTREAM_TIMEOUT

pytestmark = pytest.mark.anyio


async def test_an_upstream_killed_mid_call_gives_a_tool_error_and_then_restarts(live):
    async with live.client("alice") as client:
        assert (await client.call_tool("faulty__echo", {"text": "before"})).content[
            0
        ].text == "before"
        crashed = await client.call_tool("faulty__crash", {})
        assert crashed.is_error
        assert "faulty" in crashed.content[0].text
        other = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        assert not other.is_error
        after = await client.call_tool("faulty__echo", {"text": "after"})
        assert not after.is_error and after.content[0].text == "after"


async def test_an_upstream_that_never_answers_times_out_with_a_tool_error(live):
    async with live.client("alice") as client:
        # A guard far below the SDK client's own read timeout: the answer must be the
        # gateway's, after the upstream's timeout, which the error names.
        with anyio.fail_after(UPSTREAM_TIMEOUT + 30):
            result = await client.call_tool("faulty__hang", {})
        assert result.is_error
        assert "timed out" in result.content[0].text.lower()
        assert result.content[0].text.count("'faulty'") == 1, result.content[0].text
        assert (await client.call_tool("faulty__echo", {"text": "still here"})).content[
            0
        ].text == "still here"


async def test_an_upstream_that_fails_to_start_is_reported_and_the_others_work(live):
    async with live.client("alice") as client:
        listed = await client.list_tools()
        assert not any(tool.name.startswith("broken__") for tool in listed.tools)
        unavailable = (listed.meta or {}).get("localrouter/unavailable", {})
        assert "broken" in unavailable
        assert "closed the connection during the handshake" in unavailable["broken"]
        assert not (await client.call_tool("everything__echo", {"message": "ok"})).is_error
    said = [line for line in live.log().splitlines() if "upstream 'broken' is unavailable" in line]
    assert said
    assert all(line.count("'broken'") == 1 for line in said), said  # said once, not twice
