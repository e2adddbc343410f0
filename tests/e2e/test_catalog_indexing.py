"""A catalog over the client's budget is deferred behind search and activated on demand."""

import anyio
import mcp_types as types
import pytest

from tests.e2e.live import ToolsChanged
from tests.e2e.test_session_lifecycle import records, wait_for

pytestmark = pytest.mark.anyio
BUDGET = 16_384


def wire(items) -> int:
    """Bytes of a list as the SDK sends it: compact JSON."""
    return 2 + sum(
        len(i.model_dump_json(by_alias=True, exclude_none=True).encode()) + 1 for i in items
    )


async def catalog_bytes(client) -> int:
    tools = (await client.list_tools()).tools
    prompts = (await client.list_prompts()).prompts
    resources = (await client.list_resources()).resources
    templates = (await client.list_resource_templates()).resource_templates
    instructions = len((client.instructions or "").encode())
    return wire(tools) + wire(prompts) + wire(resources) + wire(templates) + instructions


EVERYTHING_TOOLS = [
    "get-annotated-message",
    "get-resource-reference",
    "trigger-sampling-request",
    "get-structured-content",
    "get-resource-links",
    "toggle-simulated-logging",
    "get-tiny-image",
    "gzip-file-as-resource",
]


async def a_deferred_tool(client) -> str:
    """An `everything` tool this client does not see listed (used tools get listed)."""
    listed = {tool.name for tool in (await client.list_tools()).tools}
    return next(t for t in EVERYTHING_TOOLS if f"everything__{t}" not in listed)


async def test_the_full_catalog_is_over_budget_and_the_planned_one_fits(live):
    async with live.client("alice") as full:
        assert await catalog_bytes(full) > BUDGET
    async with live.client("frank") as client:
        assert await catalog_bytes(client) <= BUDGET
        assert "Deferred servers" in client.instructions


async def test_a_search_activates_a_deferred_tool_with_list_changed(live):
    changed = ToolsChanged()

    async with live.client("frank", message_handler=changed) as client:
        before = {tool.name for tool in (await client.list_tools()).tools}
        assert "everything__trigger-long-running-operation" not in before
        found = await client.call_tool(
            "IndexSearch",
            {"queries": ["long running operation with progress"], "source": "mcp/", "limit": 3},
        )
        text = found.content[0].text
        assert "mcp/everything/tool/trigger-long-running-operation" in text
        assert "Now available in this session" in text
        assert "- tool everything__trigger-long-running-operation" in text
        assert '"duration"' in text  # the input schema, to call it right away
        await changed.wait()
        after = {tool.name for tool in (await client.list_tools()).tools}
        assert "everything__trigger-long-running-operation" in after
        result = await client.call_tool(
            "everything__trigger-long-running-operation", {"duration": 0.2, "steps": 2}
        )
        assert not result.is_error


async def test_a_deferred_tool_can_be_called_by_name_without_a_search(live):
    async with live.client("frank") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "everything__get-sum" not in names
        result = await client.call_tool("everything__get-sum", {"a": 2, "b": 3})
    assert "5" in result.content[0].text


async def test_search_never_reveals_tools_outside_the_allow_list(live):
    async with live.client("bob") as client:
        found = await client.call_tool("IndexSearch", {"queries": ["echo"], "source": "mcp/"})
    text = found.content[0].text
    assert "everything" not in text and "echohttp" not in text


async def test_activated_tools_stay_active_when_the_catalog_is_recomputed(live):
    changed = ToolsChanged()

    async with live.client("frank", message_handler=changed) as client:
        await client.call_tool(
            "IndexSearch", {"queries": ["sum of two numbers"], "source": "mcp/everything"}
        )
        assert "everything__get-sum" in {t.name for t in (await client.list_tools()).tools}
        await changed.wait()  # the activation's own notice, before watching for the next
        await client.call_tool("echohttp__add_tool", {"name": "another_tool"})
        await changed.wait()
        assert "everything__get-sum" in {t.name for t in (await client.list_tools()).tools}
        # The new tool is in the recomputed catalog: callable by name.
        added = await client.call_tool("echohttp__another_tool", {})
        assert added.content[0].text == "another_tool"


async def test_the_session_record_keeps_the_catalog_plan_and_activations(live):
    async with live.client(
        "frank", client_info=types.Implementation(name="plan-check", version="1")
    ) as client:
        tool = await a_deferred_tool(client)
        await client.call_tool(
            "IndexSearch",
            {"queries": [tool.replace("-", " ")], "source": f"mcp/everything/tool/{tool}"},
        )

    def recorded():
        rows = [r for r in records(live) if r["software"] == "plan-check" and r["ended"]]
        return rows[0] if rows else None

    row = await wait_for(recorded)
    before, after = row["catalog"]
    assert before > BUDGET >= after
    assert row["phases"][:2] == ["instructions", "descriptions"]
    assert row["activated"] >= 1 and row["searches"] == 1


async def test_a_2026_client_hears_of_activation_on_its_listen_stream(live):
    async with live.client("frank", mode="2026-07-28") as client:
        tool = await a_deferred_tool(client)
        async with client.listen(tools_list_changed=True) as subscription:
            found = await client.call_tool(
                "IndexSearch",
                {"queries": [tool.replace("-", " ")], "source": f"mcp/everything/tool/{tool}"},
            )
            assert f"everything__{tool}" in found.content[0].text
            with anyio.fail_after(10):
                event = await anext(aiter(subscription))
            assert event is not None
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "everything__get-annotated-message" in names
