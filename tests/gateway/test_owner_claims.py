"""A worker remembers the owner claims it made: its own requests cost no Redis round trip,
until the claim is due for renewal or the worker's heartbeat has had a gap.

Real Redis (TEST_REDIS_URL, which .ci/run sets) and real heartbeat threads; each test has a
key prefix of its own. Round trips are counted at the claim script.
"""

import os
import time
import uuid

import anyio
import pytest
import redis.asyncio as redis
from redis.exceptions import ConnectionError as RedisConnectionError

from gateway.http import heartbeat, owner_directory
from gateway.http.heartbeat import Heartbeat
from gateway.http.owner_directory import RENEWAL_SECONDS, OwnerDirectory

pytestmark = pytest.mark.anyio
REDIS = os.environ.get("TEST_REDIS_URL")
IDLE = 600
PERIOD = 0.1


@pytest.fixture
async def store():
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    client = redis.from_url(REDIS)
    yield client
    await client.aclose()


@pytest.fixture
async def prefix(store, monkeypatch):
    """This test's key prefix (owners and heartbeats); its keys are removed at the end."""
    prefix = f"localrouter:test-{uuid.uuid4().hex}:"
    monkeypatch.setattr(heartbeat, "WORKER_PREFIX", prefix + "worker:")
    yield prefix
    keys = [key async for key in store.scan_iter(match=prefix + "*")]
    if keys:
        await store.delete(*keys)


class Worker:
    """One worker's heartbeat and owner directory, counting its claim round trips."""

    def __init__(self, prefix: str, channel: str) -> None:
        self.channel = channel
        self.heartbeat = Heartbeat(REDIS, PERIOD)
        self.directory = OwnerDirectory(REDIS, IDLE, prefix + "owner:", self.heartbeat)
        self.round_trips = 0
        script = self.directory._claim

        async def counted(**kwargs):
            self.round_trips += 1
            return await script(**kwargs)

        self.directory._claim = counted

    async def claim(self, key: str) -> str:
        return await self.directory.claim(key, self.channel)

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self.heartbeat.stop)
        await self.directory.aclose()


@pytest.fixture
async def workers(prefix):
    """Two beating workers, `a` and `b`."""
    both = [Worker(prefix, f"specific.{name}!{uuid.uuid4().hex}") for name in "ab"]
    for worker in both:
        await anyio.to_thread.run_sync(worker.heartbeat.start, worker.channel)
    yield both
    for worker in both:
        await worker.aclose()


async def test_a_worker_claims_what_it_owns_once(workers, prefix, store):
    a, _ = workers
    for _ in range(50):
        assert await a.claim("client-7") == a.channel
    assert a.round_trips == 1
    ttl = await store.ttl(prefix + "owner:client-7")
    assert IDLE < ttl <= IDLE + RENEWAL_SECONDS  # outlives an idle session by the renewal


async def test_a_held_claim_is_renewed_once_its_renewal_is_due(workers, prefix, store, monkeypatch):
    a, _ = workers
    await a.claim("client-7")
    await store.expire(prefix + "owner:client-7", 5)
    later = time.monotonic() + RENEWAL_SECONDS + 1
    monkeypatch.setattr(owner_directory.time, "monotonic", lambda: later)
    assert await a.claim("client-7") == a.channel
    assert a.round_trips == 2
    assert await store.ttl(prefix + "owner:client-7") > IDLE  # renewed in Redis
    await a.claim("client-7")
    assert a.round_trips == 2


async def test_a_gap_in_the_heartbeat_drops_what_the_worker_held(workers, store, monkeypatch):
    a, b = workers
    assert await a.claim("client-7") == a.channel
    life = a.heartbeat.life
    # a cannot reach Redis for longer than its heartbeat lives: its key is gone, and b
    # takes over.
    with monkeypatch.context() as out_of_reach:
        out_of_reach.setattr(a.heartbeat._redis, "set", unreachable)
        await store.delete(heartbeat.WORKER_PREFIX + a.channel)
        assert await b.claim("client-7") == b.channel
    with anyio.fail_after(5):
        while a.heartbeat.life is life:  # Redis is back: a's next beat finds its key gone
            await anyio.sleep(PERIOD / 2)
    assert await a.claim("client-7") == b.channel  # asked Redis: a forwards to b
    assert a.round_trips == 2


def unreachable(*args, **kwargs):
    raise RedisConnectionError("Redis is out of reach")


async def test_a_steady_heartbeat_keeps_its_life(workers):
    a, _ = workers
    life = a.heartbeat.life
    await anyio.sleep(PERIOD * 5)
    assert life is not None and a.heartbeat.life is life


async def test_a_worker_that_stopped_beating_holds_nothing(workers):
    a, _ = workers
    await a.claim("client-7")
    await anyio.to_thread.run_sync(a.heartbeat.stop)
    assert a.heartbeat.life is None
    await a.claim("client-7")
    await a.claim("client-7")
    assert a.round_trips == 3


async def test_a_claim_for_another_channel_asks_redis(workers):
    a, b = workers
    assert await a.directory.claim("client-7", a.channel) == a.channel
    assert await a.directory.claim("client-7", b.channel) == a.channel  # a lives: stays a's
    assert a.round_trips == 2


async def test_a_released_claim_is_made_again(workers, prefix, store):
    a, b = workers
    await a.claim("client-7")
    await a.directory.release("client-7", a.channel)
    assert await store.get(prefix + "owner:client-7") is None
    assert await b.claim("client-7") == b.channel
    assert await a.claim("client-7") == b.channel
    assert a.round_trips == 2


async def test_withdrawing_hands_back_every_held_claim(workers, prefix, store):
    a, _ = workers
    for key in ("client-1", "client-2", "w1.session"):
        await a.claim(key)
    await a.directory.withdraw(a.channel)
    for key in ("client-1", "client-2", "w1.session"):
        assert await store.get(prefix + "owner:" + key) is None
    await a.claim("client-1")
    assert a.round_trips == 4
