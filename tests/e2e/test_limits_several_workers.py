"""Two daphne workers sharing Redis count one client's calls together."""

import os
import uuid
from contextlib import asynccontextmanager

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.live import start_daphne, start_gateway, stdio_upstream, stop_gateway
from tests.e2e.test_limits import echo, refused_while_one_runs
from tests.fixtures.http_server import free_port, stop_process

pytestmark = pytest.mark.anyio
REDIS = os.environ.get("TEST_REDIS_URL")


@pytest.fixture(scope="module")
def workers(tmp_path_factory):
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    gateway = start_gateway(
        tmp_path_factory.mktemp("limit-workers"),
        [stdio_upstream("echo", "echo_server.py")],
        [
            {"name": "shared", "set": {"calls_per_minute": 4}},
            {"name": "single", "set": {"concurrent_calls": 1}},
        ],
        REDIS_URL=REDIS,
        # Counts of this run alone: other runs may share the Redis database.
        LOCALROUTER_LIMITS_KEY_PREFIX=f"localrouter:test-{uuid.uuid4().hex}:",
    )
    second_port = free_port()
    second = start_daphne(gateway, second_port, gateway.data_dir / "daphne-2.log")
    try:
        gateway.extra.update(first=gateway.url, second=f"http://127.0.0.1:{second_port}/mcp")
        yield gateway
    finally:
        stop_process(second)
        stop_gateway(gateway)


@asynccontextmanager
async def client_of(workers, worker: str, name: str):
    """An SDK client whose session lives in one worker: a handshake-era session stays in
    the worker it started in (a 2026-07-28 client's calls would all go to one owner)."""
    async with workers.http(workers.tokens[name]) as http:
        transport = streamable_http_client(workers.extra[worker], http_client=http)
        async with Client(transport, mode="legacy") as client:
            yield client


async def test_calls_split_across_workers_are_refused_once_the_shared_count_is_reached(workers):
    async with (
        client_of(workers, "first", "shared") as first,
        client_of(workers, "second", "shared") as second,
    ):
        answers = [await echo(first), await echo(second), await echo(first), await echo(second)]
        assert not any(answer.is_error for answer in answers)
        for client in (first, second):
            refused = await echo(client)
            assert refused.is_error
            assert refused.content[0].text.startswith(
                "Limit reached: calls_per_minute=4 for client 'shared'; retry in "
            )


async def test_a_call_running_in_one_worker_holds_the_other_back(workers):
    async with (
        client_of(workers, "first", "single") as first,
        client_of(workers, "second", "single") as second,
    ):
        refused, answer = await refused_while_one_runs(first, second, "hi")
    assert refused.content[0].text.startswith(
        "Limit reached: concurrent_calls=1 for client 'single' (1 running)"
    )
    assert answer.content[0].text == "hi"
