"""The captured catalogs of real MCP servers, and the fixture server that replays them.

The catalogs in tests/fixtures/catalogs/ were captured by tests/fixtures/capture_catalogs.py;
tests/fixtures/servers/catalog_replay.py serves one of them (or N generated tools) over stdio.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CATALOGS = sorted((FIXTURES / "catalogs").glob("*.json"))
REPLAY = FIXTURES / "servers" / "catalog_replay.py"

LIST_METHODS = {
    "tools": "tools/list",
    "prompts": "prompts/list",
    "resources": "resources/list",
    "resourceTemplates": "resources/templates/list",
}
MODELS: dict[str, type[types.MCPModel]] = {
    "tools": types.Tool,
    "prompts": types.Prompt,
    "resources": types.Resource,
    "resourceTemplates": types.ResourceTemplate,
}


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def wire(item: types.MCPModel) -> dict[str, Any]:
    return item.model_dump(by_alias=True, exclude_none=True, mode="json")


def replay(*args: str) -> Client:
    params = StdioServerParameters(command=sys.executable, args=[str(REPLAY), *args])
    return Client(params, mode="legacy", cache=None)


async def list_all(fetch: Any, key: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await fetch(cursor=cursor)
        items.extend(wire(item) for item in getattr(page, key))
        cursor = page.next_cursor
        if not cursor:
            return items


@pytest.mark.parametrize("path", CATALOGS, ids=[p.stem for p in CATALOGS])
def test_catalog_fixture_is_complete_and_validates(path: Path):
    catalog = load(path)
    source = catalog["source"]
    assert source["package"] and source["version"] and source["run"]
    assert source["registry"] in {"npm", "pypi"}
    assert catalog["serverInfo"]["name"]
    assert catalog["protocolVersion"]
    assert isinstance(catalog["capabilities"], dict)
    for method, error in catalog["errors"].items():
        assert method in LIST_METHODS.values()
        assert isinstance(error["code"], int) and isinstance(error["message"], str)
    assert catalog["instructions"] is None or isinstance(catalog["instructions"], str)
    for key, model in MODELS.items():
        assert isinstance(catalog[key], list), key
        for item in catalog[key]:
            # Stored as the SDK's own wire JSON, so validating and dumping gives it back.
            assert wire(model.model_validate(item)) == item
    names = [tool["name"] for tool in catalog["tools"]]
    assert names and len(set(names)) == len(names)


def test_catalogs_cover_enough_servers_and_tools():
    catalogs = [load(path) for path in CATALOGS]
    assert len(catalogs) >= 8
    assert sum(len(c["tools"]) for c in catalogs) >= 150
    assert len({c["source"]["package"] for c in catalogs}) == len(catalogs)


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["everything", "context7", "mongodb"])
async def test_replay_serves_exactly_the_captured_catalog(name: str):
    catalog = load(FIXTURES / "catalogs" / f"{name}.json")
    async with replay(str(FIXTURES / "catalogs" / f"{name}.json")) as client:
        assert await list_all(client.list_tools, "tools") == catalog["tools"]
        assert client.instructions == catalog["instructions"]
        assert client.server_info is not None
        assert wire(client.server_info) == catalog["serverInfo"]
        capabilities = client.server_capabilities
        assert wire(capabilities) == catalog["capabilities"]
        assert bool(capabilities.prompts) == ("prompts" in catalog["capabilities"])
        assert bool(capabilities.resources) == ("resources" in catalog["capabilities"])
        if capabilities.prompts:
            assert await list_all(client.list_prompts, "prompts") == catalog["prompts"]
        if capabilities.resources:
            assert await list_all(client.list_resources, "resources") == catalog["resources"]
            templates = await list_all(client.list_resource_templates, "resource_templates")
            assert templates == catalog["resourceTemplates"]


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["puppeteer", "sqlite"])
async def test_replay_answers_a_recorded_error_with_the_same_code_and_message(name: str):
    catalog = load(FIXTURES / "catalogs" / f"{name}.json")
    recorded = catalog["errors"]["resources/templates/list"]
    assert recorded == {"code": -32601, "message": "Method not found"}
    async with replay(str(FIXTURES / "catalogs" / f"{name}.json")) as client:
        assert client.server_capabilities.resources is not None
        with pytest.raises(MCPError) as caught:
            await client.list_resource_templates()
        assert (caught.value.code, caught.value.message) == (recorded["code"], recorded["message"])
        assert await list_all(client.list_resources, "resources") == catalog["resources"]


@pytest.mark.anyio
async def test_replay_answers_calls_so_routing_can_be_checked():
    path = FIXTURES / "catalogs" / "everything.json"
    catalog = load(path)
    async with replay(str(path)) as client:
        result = await client.call_tool("echo", {"message": "hi", "n": 2})
        assert isinstance(result.content[0], types.TextContent)
        assert result.content[0].text == 'called echo with {"message": "hi", "n": 2}'
        assert not result.is_error

        # A tool with an outputSchema gets structured content that the client's validation accepts.
        structured = next(t for t in catalog["tools"] if "outputSchema" in t)
        result = await client.call_tool(structured["name"], {})
        assert not result.is_error and result.structured_content is not None

        unknown = await client.call_tool("no-such-tool", {})
        assert unknown.is_error

        prompt = catalog["prompts"][0]["name"]
        got = await client.get_prompt(prompt, {"x": "1"})
        assert isinstance(got.messages[0].content, types.TextContent)
        assert got.messages[0].content.text == f'prompt {prompt} with {{"x": "1"}}'

        uri = catalog["resources"][0]["uri"]
        read = await client.read_resource(uri)
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert read.contents[0].text == f"read {uri}"


@pytest.mark.anyio
async def test_replay_paginates_when_asked():
    path = FIXTURES / "catalogs" / "notion.json"
    catalog = load(path)
    async with replay(str(path), "--page-size", "5") as client:
        first = await client.list_tools()
        assert len(first.tools) == 5 and first.next_cursor
        assert await list_all(client.list_tools, "tools") == catalog["tools"]


@pytest.mark.anyio
async def test_replay_of_a_thousand_generated_tools():
    async with replay("--tools", "1000") as client:
        tools = await list_all(client.list_tools, "tools")
        assert len(tools) == 1000
        assert len({tool["name"] for tool in tools}) == 1000
        result = await client.call_tool("tool_0999", {"id": "r1"})
        assert isinstance(result.content[0], types.TextContent)
        assert result.content[0].text == 'called tool_0999 with {"id": "r1"}'
