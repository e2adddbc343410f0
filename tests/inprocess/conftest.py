"""Fixtures for the in-process tests: a fresh gateway per test, closed with its upstreams."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gateway import runtime
from gateway.upstream_config.directory import directory
from tests.fixtures.http_server import RunningServer, run_http_server
from tests.fixtures.processes import child_pids, process_state
from tests.inprocess.database import add_client, add_upstream, echo_http_upstream, echo_upstream


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


@pytest.fixture(scope="session")
def echo_http() -> Iterator[RunningServer]:
    """The SDK-written echo fixture server over Streamable HTTP, one for every test: a
    gateway connects to it in milliseconds, where a stdio upstream is a process per test."""
    with run_http_server() as server:
        yield server


@pytest.fixture
async def echo_token(settings, echo_http) -> str:
    """The token of a client that uses the echo fixture server (and sees its whole catalog)."""
    # Every upstream in the first catalog, however loaded the machine (tests of the budget
    # itself are in tests/e2e/test_start_budget.py).
    settings.UPSTREAM_START_BUDGET = 120
    await add_upstream(**echo_http_upstream(echo_http.url))
    return await add_client("alice", catalog_indexing_enabled=False)


@pytest.fixture
async def stdio_echo_token(settings) -> str:
    """Like `echo_token`, with the echo server as this test's own stdio child process."""
    settings.UPSTREAM_START_BUDGET = 120
    await add_upstream(**echo_upstream())
    return await add_client("alice", catalog_indexing_enabled=False)
