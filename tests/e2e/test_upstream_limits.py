"""Through daphne: a stdio upstream's oversized message and its stderr floods stay bounded."""

import re

import anyio
import pytest

from gateway.upstreams import stderr
from tests.e2e.live import running_gateway, stdio_upstream
from tests.fixtures.processes import child_pids, process_state

pytestmark = pytest.mark.anyio
LIMIT_MIB = 4


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    upstreams = [
        stdio_upstream("bulk", "echo_server.py"),
        stdio_upstream("echo", "echo_server.py"),
        stdio_upstream("loud", "stderr_flood.py"),
        stdio_upstream("long", "stderr_flood.py"),
    ]
    clients = [
        {"name": "alice", "set": {"indexing_enabled": False, "catalog_indexing_enabled": False}},
        {"name": "bob", "set": {"catalog_indexing_enabled": False}},
    ]
    with running_gateway(
        tmp_path_factory.mktemp("limits"),
        upstreams,
        clients,
        LOCALROUTER_UPSTREAM_MAX_MESSAGE_MIB=str(LIMIT_MIB),
    ) as gateway:
        yield gateway


async def _log_shows(gateway, pattern: str, seconds: float = 20) -> str:
    """The gateway's log once `pattern` appears in it (bounded)."""
    with anyio.fail_after(seconds):
        while not re.search(pattern, log := gateway.log()):
            await anyio.sleep(0.1)
    return log


async def test_a_response_over_the_limit_is_a_tool_error_and_the_upstream_restarts(limited):
    async with limited.client("alice") as client:
        started = await client.call_tool("bulk__echo", {"text": "before"})
        assert started.content[0].text == "before"
        before = child_pids(limited.process.pid)
        result = await client.call_tool("bulk__big_text", {"size": 5_000_000})  # 10 MB message
        assert result.is_error
        text = result.content[0].text
        assert text.startswith("Upstream 'bulk' ")
        assert text.endswith(
            f"it sent a message of more than {LIMIT_MIB} MiB, the limit "
            "(LOCALROUTER_UPSTREAM_MAX_MESSAGE_MIB); the upstream was stopped and starts again "
            "on the next call"
        )
        with anyio.fail_after(20):  # its process is stopped and reaped: no orphan
            while len(gone := before - child_pids(limited.process.pid)) != 1:
                await anyio.sleep(0.1)
        assert [process_state(pid) for pid in gone] == [None]
        after = await client.call_tool("bulk__echo", {"text": "after"})
        assert not after.is_error and after.content[0].text == "after"
        assert len(child_pids(limited.process.pid) - before) == 1  # started again
    assert "Traceback" not in limited.log()


async def test_other_clients_calls_go_on_while_a_large_response_is_read(limited):
    answers: list[str] = []

    async def small_calls() -> None:
        async with limited.client("bob") as client:
            for number in range(20):
                reply = await client.call_tool("echo__echo", {"text": f"small {number}"})
                answers.append(reply.content[0].text)

    async with limited.client("alice") as client, anyio.create_task_group() as tg:
        tg.start_soon(small_calls)
        # A 3 MB message, under the limit: parsed off the event loop, delivered whole.
        large = await client.call_tool("bulk__big_text", {"size": 1_500_000})
    assert not large.is_error and large.content[0].text == "x" * 1_500_000
    assert answers == [f"small {number}" for number in range(20)]


async def test_a_flood_of_stderr_lines_is_logged_up_to_the_budget_then_counted(limited):
    async with limited.client("alice") as client:
        exited = await client.call_tool("loud__write_lines", {"count": 500, "then_exit": True})
        assert exited.is_error
    budget = stderr.LOG_LINES_PER_WINDOW
    log = await _log_shows(limited, r"upstream loud: suppressed \d+ stderr lines")
    assert len(re.findall(r"upstream loud: flood line \d+\n", log)) == budget
    assert f"upstream loud: suppressed {500 - budget} stderr lines" in log


async def test_a_stderr_line_without_end_is_cut_and_its_size_told(limited):
    async with limited.client("alice") as client:
        exited = await client.call_tool(
            "long__write_endless_line", {"size": 20_000_000, "then_exit": True}
        )
        assert exited.is_error
    log = await _log_shows(limited, r"upstream long: y+ \[cut")
    (line,) = [line for line in log.splitlines() if "upstream long: y" in line]
    assert line.endswith("y" * stderr.MAX_LINE_CHARS + " [cut: the line had 20,000,000 bytes]")
    assert len(line) < stderr.MAX_LINE_CHARS + 200
