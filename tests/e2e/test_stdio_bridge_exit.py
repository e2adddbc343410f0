"""The stdio bridge stops every upstream process it started before it exits: when its input
closes, when it gets SIGTERM, and when a stdio client closes it as the SDK's does (input
closed, SIGTERM 2 s later). An upstream still starting (`sleep`, which never answers the
handshake) used to be left running, its parent PID 1.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.e2e import gateway_db
from tests.e2e.live import INITIALIZE, ROOT, add_upstreams_and_clients, stdio_upstream
from tests.fixtures.processes import child_pids, process_state

pytestmark = pytest.mark.anyio

UPSTREAMS = [
    stdio_upstream("echo", "echo_server.py"),
    # Starts for 30 s (the floor of a start's limit): still starting when the bridge ends.
    {"name": "stuck", "transport": "stdio", "command": "sleep", "args": ["300"]},
]
BRIDGE = [sys.executable, "manage.py", "mcp_stdio"]


@pytest.fixture
def bridge_env(tmp_path) -> dict[str, str]:
    """The bridge's environment: a gateway database with both upstreams and client alice,
    whose token is LOCALROUTER_TOKEN."""
    env = {**os.environ, "LOCALROUTER_DATA_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    gateway_db.current().prepare(tmp_path, env)
    clients = [{"name": "alice"}]
    tokens = gateway_db.current().run(
        tmp_path, lambda: add_upstreams_and_clients(UPSTREAMS, clients)
    )
    return {**env, "LOCALROUTER_TOKEN": tokens["alice"]}


def alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if process_state(pid) not in (None, "Z")}


async def upstreams_of(bridge: int) -> set[int]:
    """The bridge's two upstream processes, once both are started."""
    with anyio.fail_after(60):
        while len(alive(child_pids(bridge))) < len(UPSTREAMS):
            await anyio.sleep(0.05)
    return alive(child_pids(bridge))


async def assert_stopped(upstreams: set[int]) -> None:
    """None of `upstreams` is left running (an orphan would run on for 300 s)."""
    with anyio.move_on_after(10):
        while alive(upstreams):
            await anyio.sleep(0.05)
    left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes() for pid in alive(upstreams)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)  # the test's own processes, however it ends
    assert not left


@pytest.mark.parametrize("ending", ["stdin closes", "SIGTERM"])
async def test_the_bridge_stops_every_upstream_when_it_ends(bridge_env, tmp_path, ending):
    with (tmp_path / "bridge.log").open("wb") as log:
        bridge = subprocess.Popen(
            BRIDGE, cwd=ROOT, env=bridge_env, stdin=subprocess.PIPE, stdout=log, stderr=log
        )
    with bridge:  # closes its stdin and waits for it at the end
        try:
            assert bridge.stdin is not None
            bridge.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            bridge.stdin.flush()
            upstreams = await upstreams_of(bridge.pid)
            if ending == "stdin closes":
                bridge.stdin.close()
            else:
                bridge.send_signal(signal.SIGTERM)
            with anyio.fail_after(60):
                await anyio.to_thread.run_sync(bridge.wait)
        finally:
            if bridge.poll() is None:
                bridge.kill()
    await assert_stopped(upstreams)
    assert bridge.returncode == (0 if ending == "stdin closes" else -signal.SIGTERM)
    assert "Traceback" not in (tmp_path / "bridge.log").read_text()


async def test_a_stdio_client_closing_the_bridge_leaves_no_upstream_running(bridge_env):
    names = ("LOCALROUTER_TOKEN", "LOCALROUTER_DATA_DIR")
    params = StdioServerParameters(
        command=BRIDGE[0], args=BRIDGE[1:], env={name: bridge_env[name] for name in names}, cwd=ROOT
    )
    before = child_pids()
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        (bridge,) = child_pids() - before
        upstreams = await upstreams_of(bridge)
    await assert_stopped(upstreams)
