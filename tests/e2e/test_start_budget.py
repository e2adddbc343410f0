"""A session never waits on a slow upstream beyond the start budget (real stdio upstreams)."""

import sys
import time
from pathlib import Path

import anyio
import pytest

from tests.e2e.live import SERVERS, ToolsChanged, start_gateway, stdio_upstream, stop_gateway

BUDGET = 2.0
GOOD = [f"good{i}" for i in range(5)]
RELEASE = "release-late"  # the late upstream starts its server once this file exists


def mixed_upstreams(folder: Path) -> list[dict]:
    """Five good fixture servers, one that never answers, one that crashes, and one that is
    late: it starts only when the test creates `folder / RELEASE`."""
    late_command = (
        f"while [ ! -e {folder / RELEASE} ]; do sleep 0.05; done; "
        f"exec {sys.executable} {SERVERS / 'echo_server.py'}"
    )
    return [
        *(stdio_upstream(name, "echo_server.py") for name in GOOD),
        {"name": "hanging", "transport": "stdio", "command": "sleep", "args": ["300"]},
        stdio_upstream("crashing", "fails_to_start.py"),
        {"name": "late", "transport": "stdio", "command": "sh", "args": ["-c", late_command]},
    ]


@pytest.fixture
def mixed(tmp_path):
    gateway = start_gateway(
        tmp_path,
        mixed_upstreams(tmp_path),
        [
            {"name": "alice", "set": {"catalog_indexing_enabled": False}},
            {"name": "nobody", "upstreams": []},
        ],
        LOCALROUTER_UPSTREAM_START_BUDGET=str(BUDGET),
    )
    try:
        yield gateway
    finally:
        stop_gateway(gateway)


def upstreams_of(tools) -> set[str]:
    return {tool.name.split("__", 1)[0] for tool in tools}


async def warm_up(mixed) -> None:
    """Start the worker's gateway (imports, database) with a client that uses no upstream."""
    async with mixed.client("nobody") as client:
        await client.list_tools()


@pytest.mark.anyio
async def test_the_first_tool_list_comes_within_the_budget_and_late_upstreams_join(mixed):
    await warm_up(mixed)
    changed = ToolsChanged()
    async with mixed.client("alice", message_handler=changed) as client:
        # `hanging` never answers and `late` has not started: the list can only come because
        # the budget ran out (the guard is far below `hanging`'s 60 s upstream timeout).
        with anyio.fail_after(30):
            first = upstreams_of((await client.list_tools()).tools)
        assert not first & {"hanging", "crashing", "late"}
        (mixed.data_dir / RELEASE).touch()

        with anyio.fail_after(60):
            while not {*GOOD, "late"} <= first:
                await changed.wait(30)
                first = upstreams_of((await client.list_tools()).tools)
        assert "hanging" not in first


@pytest.mark.anyio
async def test_a_later_session_does_not_wait_again_for_the_hanging_upstream(mixed):
    await warm_up(mixed)
    async with mixed.client("alice") as client:
        await client.list_tools()
    started = time.monotonic()
    async with mixed.client("alice") as client:
        await client.list_tools()
    elapsed = time.monotonic() - started
    assert elapsed < BUDGET, f"second session's first tools/list took {elapsed:.2f}s"
