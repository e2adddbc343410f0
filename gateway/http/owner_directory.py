"""Who owns what, in Redis: sessions and 2026-07-28 clients -> the channel of their worker,
and which workers are alive.

Every worker keeps a heartbeat key alive (`heartbeat.py`); one that stops gracefully hands
back the owner keys it holds at once (`withdraw`), and deletes its heartbeat once its
running requests are done; one that crashes stops beating and is taken for gone once its
heartbeat expires. A request whose owner is gone is served where it arrives: a
handshake-era session is unknown there (404, the client opens a new one), a 2026-07-28
client is taken over by that worker.
"""

from __future__ import annotations

from gateway.http import heartbeat

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

    def __init__(self, url: str, ttl_seconds: int, prefix: str) -> None:
        import redis.asyncio as redis

        self._redis = redis.from_url(url)
        self._prefix = prefix  # of the owner keys: LOCALROUTER_OWNERS_KEY_PREFIX
        self._ttl = ttl_seconds
        self._owner_and_life = self._redis.register_script(_OWNER_AND_LIFE)
        self._replace_if = self._redis.register_script(_REPLACE_IF)
        self._claim = self._redis.register_script(_CLAIM)
        self._mine: set[str] = set()  # keys this worker claimed, handed back by `withdraw`

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
        trip: a 2026-07-28 client's every request claims it)."""
        args = [heartbeat.WORKER_PREFIX, channel, self._ttl]
        owner = (await self._claim(keys=[self._prefix + key], args=args)).decode()
        if owner == channel:
            self._mine.add(key)
        else:
            self._mine.discard(key)
        return owner

    async def release(self, key: str, channel: str) -> None:
        self._mine.discard(key)
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
