"""SIGTERM under load: calls in flight finish, newcomers get 503 + Retry-After, no errors."""

import signal

import anyio
import httpx2
import pytest

from tests.e2e.live import INITIALIZE, NODE_BIN, start_gateway, stop_gateway

pytestmark = pytest.mark.anyio

CALLS = 6
SLOW = "everything__trigger-long-running-operation"
ACCEPT = "application/json, text/event-stream"


@pytest.fixture(params=["daphne", "uvicorn"])
def gateway(tmp_path, request):
    live = start_gateway(
        tmp_path,
        [
            {
                "name": "everything",
                "transport": "stdio",
                "command": str(NODE_BIN / "mcp-server-everything"),
                "args": ["stdio"],
            }
        ],
        [{"name": "lee"}],
        LOCALROUTER_SHUTDOWN_GRACE_SECONDS="20",
        LOCALROUTER_SERVER=request.param,
    )
    try:
        yield live
    finally:
        stop_gateway(live)


async def newcomer_statuses(live, stopped: anyio.Event) -> list[tuple[int, str | None]]:
    """Keep opening sessions until the server stops listening: (status, Retry-After) each."""
    answers = []
    async with live.http(live.tokens["lee"]) as http:
        while not stopped.is_set():
            try:
                response = await http.post(live.url, json=INITIALIZE, headers={"Accept": ACCEPT})
            except httpx2.TransportError:
                break
            answers.append((response.status_code, response.headers.get("retry-after")))
            await anyio.sleep(0.05)
    return answers


async def test_sigterm_lets_calls_in_flight_finish_and_turns_newcomers_away(gateway):
    results, running = [], []
    answers: list = []
    stopped = anyio.Event()

    async def call(index: int) -> None:
        started = anyio.Event()
        running.append(started)

        async def progressed(progress, total, message) -> None:
            started.set()

        async with gateway.client("lee", mode="2026-07-28" if index % 2 else "legacy") as client:
            await client.list_tools()  # the SDK checks results against the listed schemas
            result = await client.call_tool(
                SLOW, {"duration": 3, "steps": 6}, progress_callback=progressed
            )
            results.append(result)

    async def terminate_when_all_run() -> None:
        with anyio.fail_after(30):
            while len(running) < CALLS:
                await anyio.sleep(0.05)
            for started in running:
                await started.wait()
        gateway.process.send_signal(signal.SIGTERM)
        answers.extend(await newcomer_statuses(gateway, stopped))

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for index in range(CALLS):
                group.start_soon(call, index)
            group.start_soon(terminate_when_all_run)
        await anyio.to_thread.run_sync(gateway.process.wait)
        stopped.set()

    assert len(results) == CALLS
    assert all(not r.is_error and "completed" in r.content[0].text for r in results)
    assert answers, "some newcomers arrived while the server was stopping"
    assert set(answers) == {(503, "5")}
    log = gateway.log()
    assert "Traceback" not in log
    assert " ERROR " not in log and " CRITICAL " not in log
    assert gateway.process.returncode == 0
