"""Real npm and PyPI servers behind daphne, not replays: each one's whole catalog comes through.

`@modelcontextprotocol/server-puppeteer` (npm) and `mcp-server-sqlite` (PyPI, in its own venv
for its v1 `mcp` SDK: `make var/upstream-venvs/sqlite/.installed`) both declare resources and
answer `resources/templates/list` with -32601, which once hid every tool they had. Listing
puppeteer's tools launches no browser, so none is installed.
"""

import sqlite3

import pytest
from mcp import StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from tests.e2e.live import NODE_BIN, ROOT, running_gateway

pytestmark = pytest.mark.anyio

SQLITE_SERVER = ROOT / "var" / "upstream-venvs" / "sqlite" / "bin" / "mcp-server-sqlite"


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("sqlite") / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)")
    return path


@pytest.fixture(scope="module")
def upstreams(database):
    if not SQLITE_SERVER.exists():
        pytest.fail(f"{SQLITE_SERVER} is missing: run `make var/upstream-venvs/sqlite/.installed`")
    return [
        {
            "name": "puppeteer",
            "transport": "stdio",
            "command": str(NODE_BIN / "mcp-server-puppeteer"),
        },
        {
            "name": "sqlite",
            "transport": "stdio",
            "command": str(SQLITE_SERVER),
            "args": ["--db-path", str(database)],
        },
    ]


@pytest.fixture(scope="module")
def real(tmp_path_factory, upstreams):
    clients = [{"name": "alice", "set": {"catalog_indexing_enabled": False}}]
    with running_gateway(tmp_path_factory.mktemp("real"), upstreams, clients) as gateway:
        yield gateway


async def offered(upstream: dict) -> dict[str, set[str]]:
    """What the server itself offers, asked directly over stdio with the SDK client."""
    params = StdioServerParameters(command=upstream["command"], args=upstream.get("args", []))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {
            "tools": {tool.name for tool in (await session.list_tools()).tools},
            "resources": {str(r.uri) for r in (await session.list_resources()).resources},
        }


async def test_every_tool_and_resource_of_the_real_servers_comes_through(real, upstreams):
    own = {upstream["name"]: await offered(upstream) for upstream in upstreams}
    assert "puppeteer_navigate" in own["puppeteer"]["tools"]
    assert "list_tables" in own["sqlite"]["tools"]
    async with real.client() as client:
        listed = await client.list_tools()
        resources = {str(r.uri) for r in (await client.list_resources()).resources}
        instructions = client.instructions
    names = {tool.name for tool in listed.tools}
    for name, offer in own.items():
        exposed = {tool for tool in names if tool.startswith(f"{name}__")}
        assert exposed == {f"{name}__{tool}" for tool in offer["tools"]}
        assert offer["resources"] <= resources
    assert (listed.meta or {}).get("localrouter/unavailable", {}) == {}
    assert "Incomplete" not in instructions
    assert "Upstream servers: puppeteer, sqlite." in instructions
    assert "unavailable" not in real.log()


async def test_a_real_sqlite_tool_answers_through_the_gateway(real):
    async with real.client() as client:
        result = await client.call_tool("sqlite__list_tables", {})
    assert not result.is_error
    assert "orders" in result.content[0].text
