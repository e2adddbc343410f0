"""Who owns what, in Redis: sessions and 2026-07-28 clients -> the channel of their worker,
and which workers are alive.

Every worker keeps a heartbeat key alive (`heartbeat.py`); one that stops gracefully hands
back the owner keys it holds at once (`withdraw`), and deletes its heartbeat once its
running requests are done; one that crashes stops beating and is taken for gone once its
heartbeat expires. A request whose owner is gone is served where it arrives: a
handshake-era session is unknown there (404, the client opens a new one), a 2026-07-28
client is taken over by that worker.

A claim this worker has made is remembered, so that the requests it owns cost no Redis
round trip: a claim is made again only once `RENEWAL_SECONDS` have passed (its key lives
that much longer than a session's idle timeout, so it never expires before the session),
or once this worker's heartbeat has begun a new life (while the heartbeat was gone, other
workers may have taken over what it claimed). Steady, a worker's requests make one claim
per session or client a minute, whatever their number.
"""

from __future__ import annotations

import time

from gateway.http import heartbeat
from gateway.http.heartbeat import Heartbeat

# A remembered claim is made again in Redis after this long; owner keys outlive a
# session's idle timeout by as much.
RENEWAL_SECONDS = 60

# KEYS[1] owner key; ARGV[1] worker prefix -> {owner or false, 1 if its heartbeat is alive}.
_OWNER_AND_LIFE = """
local owner = redis.call('GET', KEYS[1])
if not owner then return {false, 0} end
return {owner, redis.call('EXISTS', ARGV[1] .. owner)}
"""
# KEYS[1] owner key; ARGV: worker prefix, claiming channel, ttl -> the owner: the live one
# recorded (its claim renewed if it is the claimant), else the claimant, now recorded.
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[2] and redis.call('EXISTS', ARGV[1] .. owner) == 1 then
  return owner
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return ARGV[2]
"""
# KEYS[1] owner key; ARGV: expected owner, new owner or '' (delete), ttl -> 1 if replaced.
_REPLACE_IF = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3])) end
return 1
"""


class OwnerDirectory:
    """owner key (session id or 'client-<id>') -> the channel of the worker that owns it."""

    def __init__(self, url: str, idle_seconds: float, prefix: str, beat: Heartbeat) -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._prefix = prefix  # of the owner keys: LOCALROUTER_OWNERS_KEY_PREFIX
        self._ttl = int(idle_seconds) + RENEWAL_SECONDS
        self._heartbeat = beat
        self._owner_and_life = self._redis.register_script(_OWNER_AND_LIFE)
        self._replace_if = self._redis.register_script(_REPLACE_IF)
        self._claim = self._redis.register_script(_CLAIM)
        # Keys this worker claimed (handed back by `withdraw`) -> (the channel they were
        # claimed for, the heartbeat's life then, when to claim them again).
        self._mine: dict[str, tuple[str, object | None, float]] = {}

    async def owner(self, key: str) -> str | None:
        """The live worker that owns `key`; a dead owner's claim is dropped (None)."""
        owner, alive = await self._owner_and_life(
            keys=[self._prefix + key], args=[heartbeat.WORKER_PREFIX]
        )
        if owner is None:
            return None
        if not alive:
            await self._replace_if(keys=[self._prefix + key], args=[owner, "", self._ttl])
            return None
        return owner.decode()

    async def claim(self, key: str, channel: str) -> str:
        """Record this worker as owner unless a live one is; return the owner (one round
        trip, none while this worker's remembered claim holds: a 2026-07-28 client's
        every request claims it)."""
        if self._holds(key, channel):
            return channel
        life = self._heartbeat.life  # as it was before Redis answered
        args = [heartbeat.WORKER_PREFIX, channel, self._ttl]
        owner = (await self._claim(keys=[self._prefix + key], args=args)).decode()
        if owner == channel:
            self._mine[key] = (channel, life, time.monotonic() + RENEWAL_SECONDS)
        else:
            self._mine.pop(key, None)
        return owner

    def _holds(self, key: str, channel: str) -> bool:
        """Whether `channel` claimed `key` in this life of the heartbeat, recently enough."""
        held = self._mine.get(key)
        if held is None or self._heartbeat.life is None:  # not beating: nothing is held
            return False
        claimed_for, life, renewal = held
        return (
            claimed_for == channel and life is self._heartbeat.life and time.monotonic() < renewal
        )

    async def release(self, key: str, channel: str) -> None:
        self._mine.pop(key, None)
        await self._replace_if(keys=[self._prefix + key], args=[channel, "", self._ttl])

    async def alive(self, channel: str) -> bool:
        """Whether the worker listening on `channel` still beats."""
        return bool(await self._redis.exists(heartbeat.WORKER_PREFIX + channel))

    async def withdraw(self, channel: str) -> None:
        """This worker is stopping: it owns nothing from now on, for every other worker
        (what it is still answering is still relayed while it beats)."""
        for key in list(self._mine):
            await self.release(key, channel)

    async def aclose(self) -> None:
        await self._redis.aclose()
