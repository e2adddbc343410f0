"""UpstreamConnection against real third-party servers: server-everything (npm), mcp-server-time."""

from __future__ import annotations

import mcp_types as types
import pytest

from gateway.upstreams import UpstreamConnection, UpstreamSpec
from tests.fixtures.upstreams import NODE_BIN, VENV_BIN

pytestmark = pytest.mark.anyio

EVERYTHING = NODE_BIN / "mcp-server-everything"
TIME = VENV_BIN / "mcp-server-time"


@pytest.fixture
async def everything():
    if not EVERYTHING.exists():
        pytest.skip(
            "run `npm install` in the repo root for @modelcontextprotocol/server-everything"
        )
    spec = UpstreamSpec(
        name="everything", transport="stdio", command=str(EVERYTHING), args=("stdio",)
    )
    connection = UpstreamConnection(spec)
    yield connection
    await connection.aclose()


async def test_server_everything_lists_tools_and_echoes(everything):
    names = {t.name for t in await everything.list_tools()}
    assert {"echo", "trigger-long-running-operation"} <= names
    result = await everything.call_tool("echo", {"message": "hello"})
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text == "Echo: hello"


async def test_server_everything_reports_progress_of_its_long_running_operation(everything):
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = await everything.call_tool(
        "trigger-long-running-operation",
        {"duration": 0.3, "steps": 3},
        progress_callback=on_progress,
    )
    assert not result.is_error
    assert seen == [(1, 3), (2, 3), (3, 3)]


async def test_mcp_server_time_answers_the_current_time():
    if not TIME.exists():
        pytest.skip("mcp-server-time is not installed in the venv")
    connection = UpstreamConnection(UpstreamSpec(name="time", transport="stdio", command=str(TIME)))
    try:
        assert "get_current_time" in {t.name for t in await connection.list_tools()}
        result = await connection.call_tool("get_current_time", {"timezone": "UTC"})
        assert result.structured_content is not None
        assert result.structured_content["timezone"] == "UTC"
    finally:
        await connection.aclose()
