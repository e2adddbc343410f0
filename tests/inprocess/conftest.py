"""Fixtures for the in-process tests: a fresh gateway per test, closed with its upstreams."""

from __future__ import annotations

import pytest

from gateway import runtime
from gateway.directory import directory
from tests.fixtures.processes import child_pids, process_state
from tests.inprocess.database import add_client, add_upstream, echo_upstream


@pytest.fixture(autouse=True)
async def gateway_closed_at_end(monkeypatch):
    """The gateway this test's first /mcp request starts (daphne sends no lifespan events,
    so it starts lazily); closed at the end, leaving no upstream process behind."""
    before = child_pids()
    directory.invalidate()  # the upstreams of an earlier test's database are gone
    monkeypatch.setattr(runtime, "_gateway", None)
    yield
    gateway = runtime.running_gateway()
    if gateway is not None:
        await gateway.aclose()
    left = {pid for pid in child_pids() - before if process_state(pid) not in (None, "Z")}
    assert not left, f"upstream processes left running: {sorted(left)}"


@pytest.fixture
async def echo_token(settings) -> str:
    """The token of a client that uses the echo fixture server (and sees its whole catalog)."""
    # Every upstream in the first catalog, however loaded the machine (tests of the budget
    # itself are in tests/e2e/test_start_budget.py).
    settings.UPSTREAM_START_BUDGET = 120
    await add_upstream(**echo_upstream())
    return await add_client("alice", catalog_indexing_enabled=False)
