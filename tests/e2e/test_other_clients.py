"""Clients other than the Python SDK over HTTP: the MCP Inspector CLI, and stdio clients."""

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
from mcp import Client, StdioServerParameters

from tests.e2e.live import NODE_BIN, ROOT
from tests.e2e.loopback_proxies import header_proxy

INSPECTOR = str(NODE_BIN / "mcp-inspector-cli")


def inspector(*args: str) -> dict:
    done = subprocess.run(
        [INSPECTOR, "--cli", *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def test_the_mcp_inspector_cli_lists_tools_through_the_http_endpoint(live):
    port = urlsplit(live.url).port
    with header_proxy(port, f"Bearer {live.tokens['bob']}") as proxy_port:
        listed = inspector(f"http://127.0.0.1:{proxy_port}/mcp", "--method", "tools/list")
    assert {tool["name"] for tool in listed["tools"]} == {
        "time__get_current_time",
        "time__convert_time",
        "IndexSearch",
        "IndexRead",
    }


def test_the_mcp_inspector_cli_calls_a_tool_through_the_stdio_bridge(live):
    bridge = [sys.executable, "manage.py", "mcp_stdio", "--token", live.tokens["alice"]]
    env = ["-e", f"LOCALROUTER_DATA_DIR={live.data_dir}"]
    called = inspector(
        *env,
        *bridge,
        "--method",
        "tools/call",
        "--tool-name",
        "echohttp__add",
        "--tool-arg",
        "a=2",
        "b=3",
    )
    assert called["content"][0]["text"] == "5"


@pytest.mark.anyio
async def test_the_stdio_bridge_serves_the_sdk_stdio_client(live):
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        env={
            "LOCALROUTER_TOKEN": live.tokens["bob"],
            "LOCALROUTER_DATA_DIR": str(live.data_dir),
            # `time` in the first catalog even when a busy machine starts it slowly (live.py).
            "LOCALROUTER_UPSTREAM_START_BUDGET": live.env["LOCALROUTER_UPSTREAM_START_BUDGET"],
        },
        cwd=str(ROOT),
    )
    async with Client(params, mode="legacy") as client:
        assert "Upstream servers: time." in client.instructions
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "time__get_current_time" in names and "everything__echo" not in names
        now = await client.call_tool("time__get_current_time", {"timezone": "Europe/Paris"})
        assert "Europe/Paris" in now.content[0].text


@pytest.mark.anyio
async def test_the_stdio_bridge_started_from_another_directory_finds_the_gateways_data(
    live, tmp_path
):
    # What Claude Desktop does: absolute paths, no working directory of ours, and here a
    # data dir given relative to the project (as the default `var` is).
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "manage.py"), "mcp_stdio"],
        env={
            "LOCALROUTER_TOKEN": live.tokens["bob"],
            "LOCALROUTER_DATA_DIR": os.path.relpath(live.data_dir, ROOT),
            "LOCALROUTER_UPSTREAM_START_BUDGET": live.env["LOCALROUTER_UPSTREAM_START_BUDGET"],
        },
        cwd=str(tmp_path),
    )
    async with Client(params, mode="legacy") as client:
        now = await client.call_tool("time__get_current_time", {"timezone": "Asia/Tokyo"})
        assert "Asia/Tokyo" in now.content[0].text
    assert list(tmp_path.iterdir()) == []


def test_the_stdio_bridge_refuses_a_bad_token(live):
    done = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio", "--token", "lr_wrong"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=live.env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert "invalid or revoked token" in done.stderr
