"""Workers of one host, started one by one, add up their counts in one folder; a scrape of
any of them answers for all (prometheus_client's multiprocess mode, docs/operations.md)."""

import pytest

from tests.e2e.live import INITIALIZE, start_daphne, start_gateway, stdio_upstream, stop_gateway
from tests.e2e.scrape import METRICS_TOKEN, samples
from tests.fixtures.http_server import free_port, stop_process

pytestmark = pytest.mark.anyio
ACCEPT = "application/json, text/event-stream"
ECHOED = {"name": "localrouter_tool_calls_total", "upstream": "echo", "tool": "echo"}


def echoed(url: str) -> float:
    labels = {key: value for key, value in ECHOED.items() if key != "name"}
    return samples(url).value(ECHOED["name"], outcome="ok", **labels)


def live_sessions(url: str) -> float:
    return samples(url).value("localrouter_live_sessions")


@pytest.fixture
def first(tmp_path):
    gateway = start_gateway(
        tmp_path,
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "wanda"}],
        LOCALROUTER_METRICS_TOKEN=METRICS_TOKEN,
    )
    try:
        yield gateway
    finally:
        stop_gateway(gateway)


def another_worker(gateway, name: str) -> tuple:
    """One more worker for `gateway`'s data dir: (process, its /mcp URL)."""
    port = free_port()
    process = start_daphne(gateway, port, gateway.data_dir / f"{name}.log")
    return process, f"http://127.0.0.1:{port}/mcp"


async def test_any_worker_answers_for_all_and_a_dead_one_leaves_its_counts(first):
    second, second_url = another_worker(first, "second")
    try:
        async with first.client("wanda") as client:
            for _ in range(2):
                assert not (await client.call_tool("echo__echo", {"text": "one"})).is_error
            async with first.http(first.tokens["wanda"]) as http:
                opened = await http.post(second_url, json=INITIALIZE, headers={"Accept": ACCEPT})
                for request_id in range(2, 5):  # a session left open on the second worker
                    await _call_echo(http, second_url, opened.headers["mcp-session-id"], request_id)
            assert echoed(first.url) == echoed(second_url) == 5
            assert live_sessions(first.url) == live_sessions(second_url) == 2

            second.kill()  # no goodbye: a scrape finds it dead
            second.wait()
            assert echoed(first.url) == 5  # its counts stay in the sums
            assert live_sessions(first.url) == 1  # its session does not

            third, third_url = another_worker(first, "third")
            try:
                assert echoed(third_url) == 5  # joining a running worker empties nothing
            finally:
                stop_process(third)
    finally:
        stop_process(second)


async def test_the_first_worker_to_start_on_a_host_starts_from_zero(first):
    async with first.client("wanda") as client:
        assert not (await client.call_tool("echo__echo", {"text": "one"})).is_error
    assert echoed(first.url) == 1
    stop_gateway(first)
    folder = first.data_dir / "metrics"
    assert not list(folder.glob("worker-*.pid"))  # it said goodbye
    first.process, url = another_worker(first, "again")
    assert echoed(url) == 0
    assert [p.name for p in folder.glob("worker-*.pid")] == [f"worker-{first.process.pid}.pid"]


async def _call_echo(http, url: str, session_id: str, request_id: int) -> None:
    headers = {
        "Accept": ACCEPT,
        "Mcp-Session-Id": session_id,
        "MCP-Protocol-Version": "2025-06-18",
    }
    call = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "echo__echo", "arguments": {"text": "two"}},
    }
    answer = await http.post(url, json=call, headers=headers)
    assert answer.status_code == 200 and '"isError":false' in answer.text.replace(" ", "")


async def test_a_uvicorn_worker_counts_in_the_hosts_folder_too(tmp_path):
    gateway = start_gateway(
        tmp_path,
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "wanda"}],
        LOCALROUTER_METRICS_TOKEN=METRICS_TOKEN,
        LOCALROUTER_SERVER="uvicorn",
    )
    try:
        async with gateway.client("wanda") as client:
            assert not (await client.call_tool("echo__echo", {"text": "one"})).is_error
        assert echoed(gateway.url) == 1
        pid = gateway.process.pid  # `manage.py serve` started afresh as itself, same pid
        assert (tmp_path / "metrics" / f"counter_{pid}.db").is_file()
    finally:
        stop_gateway(gateway)
    assert not list((tmp_path / "metrics").glob("worker-*.pid"))
