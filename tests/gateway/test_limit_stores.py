"""Both limit stores count the same way: windows, running calls, daily bytes, all or nothing.

The Redis store runs against the machine's Redis (TEST_REDIS_URL, which .ci/run sets);
each test has a key prefix of its own and removes its keys.
"""

import os
import time
import uuid

import anyio
import pytest
import redis.asyncio as redis

from gateway.operations.limits.checks import Check
from gateway.operations.limits.memory_store import MemoryLimitStore
from gateway.operations.limits.redis_store import RedisLimitStore
from gateway.operations.limits.store import LimitStoreUnavailable
from gateway.operations.limits.windows import utc_day

pytestmark = pytest.mark.anyio
REDIS = os.environ.get("TEST_REDIS_URL")
NO_REDIS = "TEST_REDIS_URL is not set (CI sets it to the machine's Redis)"
TODAY = utc_day(time.time())


def calls(n: int, key: str = "calls") -> Check:
    return Check("calls_per_minute", n, key)


def running(n: int, key: str = "running") -> Check:
    return Check("concurrent_calls", n, key)


def daily(n: int, day: str = TODAY) -> Check:
    return Check("bytes_per_day", n, f"bytes:{day}", day)


@pytest.fixture
async def prefix():
    """A Redis key prefix for this test alone; its keys are removed at the end."""
    name = f"localrouter:test-limits-{uuid.uuid4().hex}:"
    yield name
    if not REDIS:
        return
    connection = redis.from_url(REDIS)
    keys = [key async for key in connection.scan_iter(match=f"{name}*")]
    if keys:
        await connection.delete(*keys)
    await connection.aclose()


@pytest.fixture(params=["memory", "redis"])
async def store(request, prefix):
    if request.param == "memory":
        yield MemoryLimitStore()
        return
    if not REDIS:
        pytest.skip(NO_REDIS)
    store = RedisLimitStore(REDIS, prefix)
    yield store
    await store.aclose()


async def settled(store) -> None:
    """Wait for the Redis store's releases, sent in the background (the memory store's are
    done at once)."""
    for task in list(getattr(store, "_releases", ())):
        await task


async def test_a_window_admits_its_limit_then_refuses_with_the_wait_for_room(store):
    for n in range(3):
        assert await store.acquire(7, [calls(3)], f"call-{n}") is None
    blocked = await store.acquire(7, [calls(3)], "call-3")
    assert blocked.check == calls(3)
    assert blocked.used == 3
    assert 0 < blocked.retry_after <= 60


async def test_each_client_and_each_budget_counts_on_its_own(store):
    assert await store.acquire(7, [calls(1)], "a") is None
    assert await store.acquire(7, [calls(1)], "b") is not None
    assert await store.acquire(8, [calls(1)], "c") is None  # another client
    assert await store.acquire(7, [calls(1, "tool:x__*:calls")], "d") is None  # another budget


async def test_a_refused_call_counts_against_no_budget(store):
    checks = [calls(2), running(1)]
    assert await store.acquire(7, checks, "first") is None
    blocked = await store.acquire(7, checks, "second")
    assert blocked.check == running(1) and blocked.used == 1 and blocked.retry_after is None
    store.release(7, checks, "first", 0)
    await settled(store)
    # The refused call took no place in the window: one more call fits in it.
    assert await store.acquire(7, checks, "third") is None
    assert (await store.acquire(7, [calls(2)], "fourth")).check == calls(2)


async def test_a_finished_call_frees_its_running_slot(store):
    assert await store.acquire(7, [running(2)], "a") is None
    assert await store.acquire(7, [running(2)], "b") is None
    assert (await store.acquire(7, [running(2)], "c")).used == 2
    store.release(7, [running(2)], "a", 0)
    await settled(store)
    assert await store.acquire(7, [running(2)], "c") is None


async def test_delivered_bytes_add_up_until_the_days_limit_then_wait_for_utc_midnight(store):
    assert await store.acquire(7, [daily(1000)], "a") is None
    store.release(7, [daily(1000)], "a", 600)
    await settled(store)
    assert await store.acquire(7, [daily(1000)], "b") is None  # 600 < 1000: admitted
    store.release(7, [daily(1000)], "b", 600)  # the call that crosses the limit is delivered
    await settled(store)
    blocked = await store.acquire(7, [daily(1000)], "c")
    assert blocked.check == daily(1000) and blocked.used == 1200
    assert 0 < blocked.retry_after <= 86_400
    assert await store.acquire(7, [daily(1000, "2099-01-01")], "d") is None  # a new day


async def test_a_dead_workers_running_calls_free_their_slots_when_their_lease_ends(prefix):
    if not REDIS:
        pytest.skip(NO_REDIS)
    dead = RedisLimitStore(REDIS, prefix, lease_seconds=0.5)
    alive = RedisLimitStore(REDIS, prefix)
    try:
        assert await dead.acquire(7, [running(1)], "lost") is None
        dead._renewer.cancel()  # the worker dies: nothing renews or releases its call
        assert await alive.acquire(7, [running(1)], "next") is not None
        with anyio.fail_after(10):
            while await alive.acquire(7, [running(1)], "next") is not None:
                await anyio.sleep(0.1)
    finally:
        await dead.aclose()
        await alive.aclose()


async def test_a_running_call_keeps_its_slot_beyond_one_lease(prefix):
    if not REDIS:
        pytest.skip(NO_REDIS)
    lease = 0.3
    holder = RedisLimitStore(REDIS, prefix, lease_seconds=lease)
    other = RedisLimitStore(REDIS, prefix)
    connection = redis.from_url(REDIS)
    key = f"{prefix}{{7}}:running"
    try:
        assert await holder.acquire(7, [running(1)], "long") is None
        first_end = await connection.zscore(key, "long")
        # Wait until a renewal made after the first lease's end has moved it on.
        with anyio.fail_after(10):
            while await connection.zscore(key, "long") < first_end + lease * 1000:
                await anyio.sleep(0.05)
        assert (await other.acquire(7, [running(1)], "other")).used == 1
    finally:
        await connection.aclose()
        await holder.aclose()
        await other.aclose()


async def test_an_unreachable_redis_is_reported_as_unavailable_at_once():
    store = RedisLimitStore("redis://127.0.0.1:1/0", "unused:")
    try:
        with pytest.raises(LimitStoreUnavailable, match="ConnectionError"):
            await store.acquire(7, [calls(1)], "a")
    finally:
        await store.aclose()
