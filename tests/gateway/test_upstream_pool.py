"""UpstreamPool: one connection per upstream, replaced on change, failures kept apart."""

from __future__ import annotations

import anyio
import pytest

from gateway.upstreams import UpstreamError, UpstreamPool
from tests.fixtures.processes import child_pids
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pool():
    upstream_pool = UpstreamPool()
    yield upstream_pool
    await upstream_pool.aclose()


async def test_the_same_spec_gets_the_same_connection(pool):
    first = await pool.get(fixture_spec(name="a"))
    assert await pool.get(fixture_spec(name="a")) is first
    assert pool.names() == ["a"]


async def test_a_changed_spec_replaces_and_closes_the_old_connection(pool):
    before = child_pids()
    old = await pool.get(fixture_spec(name="a"))
    await old.start()
    new = await pool.get(fixture_spec(name="a", env={"CHANGED": "yes"}))
    assert new is not old
    assert old.state == "closed"
    assert child_pids() == before  # the old process is gone; the new one starts lazily
    await new.start()
    assert len(child_pids() - before) == 1


async def test_a_failing_upstream_does_not_affect_the_others(pool):
    good = await pool.get(fixture_spec(name="good"))
    bad = await pool.get(fixture_spec("fails_to_start.py", name="bad"))

    async def use_bad() -> None:
        with pytest.raises(UpstreamError) as caught:
            await bad.list_tools()
        assert caught.value.upstream == "bad"

    async with anyio.create_task_group() as tg:
        tg.start_soon(use_bad)
        tg.start_soon(good.call_tool, "echo", {"text": "fine"})
    assert good.state == "running"
    assert (await good.call_tool("add", {"a": 1, "b": 2})).content


async def test_aclose_closes_every_connection_and_leaves_no_children():
    before = child_pids()
    upstream_pool = UpstreamPool()
    for name in ("a", "b", "c"):
        await (await upstream_pool.get(fixture_spec(name=name))).start()
    assert len(child_pids() - before) == 3
    await upstream_pool.aclose()
    assert child_pids() == before
    assert len(upstream_pool) == 0


async def test_retain_drops_upstreams_that_are_gone(pool):
    for name in ("a", "b"):
        await pool.get(fixture_spec(name=name))
    await pool.retain({"b"})
    assert pool.names() == ["b"]
