"""A session record left open by a killed process is closed by the next one."""

import anyio
import pytest

from indexing.reports.models import SessionRecord
from tests.e2e.live import start_daphne, start_gateway, stop_gateway
from tests.e2e.test_gateway_http import open_session
from tests.e2e.test_session_lifecycle import wait_for

pytestmark = pytest.mark.anyio


def _records() -> list[dict]:
    return list(
        SessionRecord.objects.order_by("started_at").values("key", "ended_at", "last_activity_at")
    )


def records(live) -> list[dict]:
    """The gateway's session records, oldest first: key, ended_at, last_activity_at."""
    return live.orm(_records)


async def start_a_session(live, token: str, *, records_after: int) -> list[dict]:
    """Open a session and keep it busy until its record is written; the records then."""
    _, headers = await open_session(live, token)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    written = anyio.Event()

    async def keep_busy() -> None:
        async with live.http(token) as http:
            while not written.is_set():
                response = await http.post(live.url, json=listing, headers=headers)
                assert response.status_code == 200
                await anyio.sleep(0.5)

    async with anyio.create_task_group() as group:
        group.start_soon(keep_busy)
        with anyio.fail_after(60):
            while True:
                rows = await anyio.to_thread.run_sync(records, live)
                if len(rows) == records_after and rows[-1]["ended_at"] is None:
                    break
        written.set()
    return rows


async def test_a_record_left_open_by_sigkill_is_closed_by_the_next_process(tmp_path):
    live = start_gateway(tmp_path, [], [{"name": "kim"}], LOCALROUTER_SESSION_IDLE_TIMEOUT="3")
    try:
        [killed] = await start_a_session(live, live.tokens["kim"], records_after=1)
        live.process.kill()
        live.process.wait()
        port = int(live.url.rsplit(":", 1)[1].split("/")[0])
        live.log_path = tmp_path / "after-kill.log"
        live.process = start_daphne(live, port, live.log_path)
        await start_a_session(live, live.tokens["kim"], records_after=2)

        def closed():
            row = next(r for r in records(live) if r["key"] == killed["key"])
            return row if row["ended_at"] else None

        row = await wait_for(closed, 60)
    finally:
        stop_gateway(live)
    assert row["ended_at"] == row["last_activity_at"]
    assert "closed 1 session record(s) left open by a stopped process" in live.log()
