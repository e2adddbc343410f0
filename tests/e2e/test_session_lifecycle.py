"""Sessions are recorded off the hot path and expire when idle, freeing their stores."""

import anyio
import pytest

from gateway.models import Upstream
from indexing.reports.models import SessionRecord
from tests.e2e.live import INITIALIZE, start_gateway, stdio_upstream, stop_gateway
from tests.fixtures.processes import child_pids, process_state

pytestmark = pytest.mark.anyio
IDLE_SECONDS = 2


def _records() -> list[dict]:
    return [
        {
            "client": r.client_label,
            "calls": r.call_count,
            "ended": r.ended_at is not None,
            "software": r.client_software,
            "protocol": r.protocol_version,
            "labels": [(x.label, x.original_bytes, x.delivered_bytes) for x in r.labels.all()],
            "by_tool": r.calls_by_tool,
            "phases": r.catalog_phases,
            "activated": r.items_activated,
            "searches": r.searches,
            "reads": r.reads,
            "catalog": [r.catalog_bytes_before, r.catalog_bytes_after],
        }
        for r in SessionRecord.objects.order_by("started_at")
    ]


def records(live) -> list[dict]:
    """The gateway's session records, oldest first, as plain values."""
    return live.orm(_records)


async def wait_for(predicate, seconds: float = 15):
    with anyio.fail_after(seconds):
        while not (value := await anyio.to_thread.run_sync(predicate)):
            await anyio.sleep(0.2)
        return value


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    gateway = start_gateway(
        tmp_path_factory.mktemp("quick"),
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "erin", "set": {"response_threshold": 2048}}],
        LOCALROUTER_SESSION_IDLE_TIMEOUT=str(IDLE_SECONDS),
    )
    try:
        yield gateway
    finally:
        stop_gateway(gateway)


async def test_a_session_leaves_a_record_with_its_calls_and_labels(quick):
    async with quick.client("erin") as client:
        await client.call_tool("echo__echo", {"text": "one"})
        big = await client.call_tool("echo__big_text", {"size": 50_000})
        assert big.content[0].text.startswith("[Response compressed — 50000 bytes")

    def ended():
        # A record and its labels are two writes: wait for the labels too.
        rows = [r for r in records(quick) if r["ended"] and r["calls"] == 2 and r["labels"]]
        return rows[0] if rows else None

    row = await wait_for(ended)
    assert row["client"] == "erin"
    assert row["protocol"] == "2025-11-25"
    assert row["by_tool"] == {"echo__echo": 1, "echo__big_text": 1}
    [(label, original, delivered)] = row["labels"]
    assert label.startswith("echo__big_text:") and original == 50_000 and delivered < 3_000


async def test_an_idle_session_expires_and_its_id_then_gets_404(quick):
    async with quick.http(quick.tokens["erin"]) as http:
        opened = await http.post(
            quick.url,
            json=INITIALIZE,
            headers={"Accept": "application/json, text/event-stream"},
        )
        headers = {
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-06-18",
        }
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert (await http.post(quick.url, json=ping, headers=headers)).status_code == 200
        # Idle means no request at all, so this waits out the timeout instead of polling.
        await anyio.sleep(IDLE_SECONDS * 2)
        status = (await http.post(quick.url, json=ping, headers=headers)).status_code
    assert status == 404


async def test_stopping_the_server_stops_its_upstream_processes(tmp_path):
    gateway = start_gateway(
        tmp_path, [stdio_upstream("echo", "echo_server.py")], [{"name": "gina"}]
    )
    try:
        async with gateway.client("gina") as client:
            await client.call_tool("echo__echo", {"text": "hi"})
            upstreams = child_pids(gateway.process.pid)
            assert upstreams, "the stdio upstream runs as a child of daphne"
    finally:
        stop_gateway(gateway)
    assert gateway.process.returncode is not None
    assert [pid for pid in upstreams if process_state(pid) is not None] == []


async def test_disabling_an_upstream_stops_its_process_and_drops_its_tools(tmp_path):
    gateway = start_gateway(tmp_path, [stdio_upstream("echo", "echo_server.py")], [{"name": "ida"}])
    try:
        async with gateway.client("ida") as client:
            await client.call_tool("echo__echo", {"text": "hi"})
            (upstream,) = child_pids(gateway.process.pid)
            assert gateway.orm(lambda: Upstream.objects.update(enabled=False)) == 1
            with anyio.fail_after(30):  # the upstream list is re-read every 0.3 s (live.py)
                while process_state(upstream) not in (None, "Z"):
                    await client.list_tools()
                    await anyio.sleep(0.5)
            assert "echo__echo" not in {t.name for t in (await client.list_tools()).tools}
            with pytest.raises(Exception, match="Unknown tool: echo__echo"):
                await client.call_tool("echo__echo", {"text": "hi"})
    finally:
        stop_gateway(gateway)
