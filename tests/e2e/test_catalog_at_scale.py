"""Every captured real catalog behind one client: within budget, and no tool out of reach."""

import json
import sys

import anyio
import pytest

from tests.e2e.live import SERVERS, ToolsChanged, start_gateway, stop_gateway
from tests.e2e.test_catalog_indexing import BUDGET, catalog_bytes
from tests.fixtures.servers.catalog_replay import minimal_instance

pytestmark = pytest.mark.anyio
CATALOGS = SERVERS.parent / "catalogs"
FIRST_CAPTURED = [
    *("antv-chart", "chrome-devtools", "context7", "desktop-commander", "everything", "fetch"),
    *("filesystem", "git", "github", "memory", "mongodb", "notion", "playwright", "puppeteer"),
    *("sequential-thinking", "sqlite", "time"),
]


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    upstreams = [
        {
            "name": path.stem,
            "transport": "stdio",
            "command": sys.executable,
            "args": [str(SERVERS / "catalog_replay.py"), str(path)],
        }
        for path in sorted(CATALOGS.glob("*.json"))
    ]
    gateway = start_gateway(
        tmp_path_factory.mktemp("crowded"),
        upstreams,
        [
            {"name": "team", "set": {"vector_search": False}},
            {"name": "solo", "upstreams": ["git"]},
            # The servers captured first: embedding every catalog takes minutes of CPU.
            {"name": "semantic", "upstreams": FIRST_CAPTURED, "set": {"vector_search": True}},
            {"name": "full", "set": {"catalog_indexing_enabled": False}},
        ],
    )
    try:
        yield gateway
    finally:
        stop_gateway(gateway)


def captured_tool_count() -> int:
    return sum(len(json.loads(p.read_text())["tools"]) for p in CATALOGS.glob("*.json"))


async def test_all_catalogs_fit_the_budget_and_a_found_tool_is_activated_and_called(crowded):
    changed = ToolsChanged()

    async with crowded.client("team", message_handler=changed) as client:
        assert captured_tool_count() >= 150
        assert await catalog_bytes(client) <= BUDGET
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "git__git_log" not in listed

        found = await client.call_tool(
            "IndexSearch", {"queries": ["shows the commit logs of a git repo_path"], "limit": 5}
        )
        assert "git__git_log" in found.content[0].text
        await changed.wait()
        relisted = {tool.name for tool in (await client.list_tools()).tools}
        assert "git__git_log" in relisted
        called = await client.call_tool("git__git_log", {"repo_path": "/srv/repo"})
        assert called.content[0].text.startswith("called git_log with")


async def test_every_visible_tool_keeps_a_valid_input_schema(crowded):
    async with crowded.client("team") as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert tool.input_schema.get("type") == "object", tool.name


async def test_a_client_limited_to_one_server_finds_nothing_of_the_others(crowded):
    async with crowded.client("solo") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        found = await client.call_tool("IndexSearch", {"queries": ["screenshot of the page"]})
    assert all(n.startswith("git__") or n.startswith("Index") for n in names)
    assert "playwright" not in found.content[0].text and "puppeteer" not in found.content[0].text


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("file a bug report on the repo about the login crash", "github__create_issue"),
        ("find GitHub projects about vector databases", "github__search_repositories"),
    ],
)
async def test_with_vector_search_a_request_in_other_words_finds_its_tool(
    crowded, request_text, tool
):
    search = {"queries": [request_text], "source": "mcp/", "limit": 5}
    async with crowded.client("semantic") as client:
        # Searches rank by keywords until the catalog's embeddings are computed (seconds of
        # CPU, in the background); no event tells a client, so ask again until they count.
        with anyio.fail_after(300):  # 254 tools took 284 s to embed at load 15
            while (
                f"- tool {tool}"
                not in (found := await client.call_tool("IndexSearch", search)).content[0].text
            ):
                await anyio.sleep(0.5)
    async with crowded.client("team") as client:
        keywords_only = await client.call_tool("IndexSearch", search)
    assert f"- tool {tool}" in found.content[0].text
    assert tool not in keywords_only.content[0].text


def recorded_failures() -> dict[str, str]:
    """server -> its list failures other than -32601, as the gateway reports them."""
    failures = {}
    for path in sorted(CATALOGS.glob("*.json")):
        errors = json.loads(path.read_text())["errors"]
        failed = [f"{m} failed: {e['message']}" for m, e in errors.items() if e["code"] != -32601]
        if failed:
            failures[path.stem] = "; ".join(failed)
    return failures


def captured_tools() -> dict[str, list[dict]]:
    """server -> its captured tools, for every catalog."""
    return {p.stem: json.loads(p.read_text())["tools"] for p in sorted(CATALOGS.glob("*.json"))}


async def test_every_tool_of_every_server_is_listed_with_catalog_indexing_off(crowded):
    async with crowded.client("full") as client:
        listed = await client.list_tools()
    names = {tool.name for tool in listed.tools}
    # Only what the real servers failed with, list by list (postgres's resources/list).
    assert (listed.meta or {}).get("localrouter/unavailable", {}) == recorded_failures()
    for server, tools in captured_tools().items():
        missing = {t["name"] for t in tools} - {
            n.split("__", 1)[1] for n in names if n.startswith(f"{server}__")
        }
        assert not missing, (server, missing)


async def test_every_tool_of_every_server_is_findable_and_callable_with_indexing_on(crowded):
    async with crowded.client("team") as client:
        visible = {tool.name for tool in (await client.list_tools()).tools}
        for server, tools in captured_tools().items():
            for tool in tools:
                exposed = f"{server}__{tool['name']}"
                query = f"{exposed} {tool.get('description', '')[:200]}"
                found = await client.call_tool(
                    "IndexSearch", {"queries": [query], "source": "mcp/", "limit": 10}
                )
                assert exposed in visible or exposed in found.content[0].text, exposed
                called = await client.call_tool(exposed, minimal_instance(tool["inputSchema"]))
                assert called.content[0].text.startswith(f"called {tool['name']} with"), exposed
