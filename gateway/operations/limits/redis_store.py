"""The limits' counts in Redis, shared by every worker: one script call to admit a call.

Each client's counts are keys under one hash tag (`<prefix>{<client id>}:…`), so a script
may touch them together even on a Redis Cluster. Times are Redis's own (`TIME`), so the
workers' clocks need not agree. Calls in the last minute are a sorted set of call ids
scored by their start; running calls are a sorted set scored by a lease's end, which this
worker renews while they run, so a worker that dies frees its slots within a lease; a
day's bytes are a counter that expires two days later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from clients.limit_settings import BYTES_PER_DAY, CALLS_PER_MINUTE
from gateway.operations.limits.checks import Check
from gateway.operations.limits.refusals import Blocked
from gateway.operations.limits.store import LimitStoreUnavailable
from gateway.operations.limits.windows import MINUTE, seconds_to_next_utc_day

logger = logging.getLogger(__name__)

LEASE_SECONDS = 60.0
"""How long a running call's slot outlives the last renewal (a dead worker's slots go then)."""
TIMEOUT_SECONDS = 1.0
"""Longest wait for Redis before a call is let through unchecked."""
DAY_KEY_SECONDS = 2 * 86_400

KIND = {CALLS_PER_MINUTE: "window", BYTES_PER_DAY: "total"}  # anything else: "running"

# KEYS: one per check. ARGV: call id, lease ms, then per check: kind, limit, window ms.
# Returns {0} when admitted, else {check number, used, wait ms or -1}.
ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  local kind, limit, span = ARGV[3 * i], tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  if kind == 'total' then
    local used = tonumber(redis.call('GET', key) or '0')
    if used >= limit then return {i, used, -1} end
  else
    local gone = now
    if kind == 'window' then gone = now - span end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', gone)
    local used = redis.call('ZCARD', key)
    if used >= limit then
      if kind == 'running' then return {i, used, -1} end
      local keeping = redis.call('ZRANGE', key, used - limit, used - limit, 'WITHSCORES')
      return {i, used, tonumber(keeping[2]) + span - now}
    end
  end
end
for i, key in ipairs(KEYS) do
  local kind = ARGV[3 * i]
  if kind == 'window' then
    redis.call('ZADD', key, now, ARGV[1])
    redis.call('PEXPIRE', key, tonumber(ARGV[3 * i + 2]))
  elseif kind == 'running' then
    redis.call('ZADD', key, now + lease, ARGV[1])
    redis.call('PEXPIRE', key, lease)
  end
end
return {0}
"""

# KEYS: running-call sets; ARGV: lease ms, then the call id held in each key.
RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if redis.call('ZADD', key, 'XX', 'CH', now + lease, ARGV[i + 1]) > 0 then
    redis.call('PEXPIRE', key, lease)
  end
end
return 0
"""


class RedisLimitStore:
    """Counts shared by every worker through Redis; an unreachable Redis raises
    `LimitStoreUnavailable` at once (one quick retry, a one-second timeout)."""

    def __init__(self, url: str, prefix: str, *, lease_seconds: float = LEASE_SECONDS) -> None:
        self._redis = redis.from_url(
            url,
            socket_timeout=TIMEOUT_SECONDS,
            socket_connect_timeout=TIMEOUT_SECONDS,
            retry=Retry(NoBackoff(), 1),
        )
        self._prefix = prefix
        self._lease_ms = int(lease_seconds * 1000)
        self._renew_every = lease_seconds / 3
        self._acquire = self._redis.register_script(ACQUIRE)
        self._renew = self._redis.register_script(RENEW)
        self._running: dict[str, list[str]] = {}  # call id -> the running-call keys it holds
        self._renewer: asyncio.Task | None = None
        self._releases: set[asyncio.Task] = set()

    def _key(self, client_id: int, check: Check) -> str:
        return f"{self._prefix}{{{client_id}}}:{check.key}"

    async def acquire(self, client_id: int, checks: Sequence[Check], call: str) -> Blocked | None:
        """Count the call against every budget at once (one script), or against none.

        Raises:
            LimitStoreUnavailable: Redis did not answer.
        """
        keys = [self._key(client_id, check) for check in checks]
        args: list[str | int] = [call, self._lease_ms]
        for check in checks:
            args += [KIND.get(check.limit, "running"), check.value, int(MINUTE * 1000)]
        try:
            answer = await self._acquire(keys=keys, args=args)
        except (RedisError, OSError) as error:
            raise LimitStoreUnavailable(describe(error)) from None
        if answer[0] == 0:
            held = [key for key, check in zip(keys, checks, strict=True) if _runs(check)]
            if held:
                self._running[call] = held
                self._start_renewing()
            return None
        check, used, wait_ms = checks[answer[0] - 1], int(answer[1]), int(answer[2])
        if check.limit == BYTES_PER_DAY:
            return Blocked(check, used, seconds_to_next_utc_day(time.time()))
        return Blocked(check, used, None if wait_ms < 0 else wait_ms / 1000)

    def release(self, client_id: int, checks: Sequence[Check], call: str, delivered: int) -> None:
        """Free the call's slots and add its bytes, in the background (one round trip; it
        is on its way before the call's answer reaches the client)."""
        self._running.pop(call, None)
        if not delivered and not any(_runs(check) for check in checks):
            return  # a window keeps its calls, a total gains nothing: nothing to write
        task = asyncio.create_task(self._release(client_id, checks, call, delivered))
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

    async def _release(
        self, client_id: int, checks: Sequence[Check], call: str, delivered: int
    ) -> None:
        pipe = self._redis.pipeline(transaction=False)
        for check in checks:
            key = self._key(client_id, check)
            if check.limit == BYTES_PER_DAY:
                if delivered:
                    pipe.incrby(key, delivered)
                    pipe.expire(key, DAY_KEY_SECONDS)
            elif _runs(check):
                pipe.zrem(key, call)
        if not len(pipe):
            return
        try:
            await pipe.execute()
        except (RedisError, OSError) as error:
            # Its slots end with their lease; its bytes go uncounted.
            logger.warning("limits: could not record a finished call in Redis: %s", describe(error))

    def _start_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.create_task(self._renew_leases(), name="limits-leases")

    async def _renew_leases(self) -> None:
        """Keep the running calls' slots while they run; stop once none is left."""
        while self._running:
            await asyncio.sleep(self._renew_every)
            held = [(key, call) for call, keys in self._running.items() for key in keys]
            if not held:
                continue
            try:
                await self._renew(
                    keys=[key for key, _ in held],
                    args=[self._lease_ms, *(call for _, call in held)],
                )
            except (RedisError, OSError) as error:
                logger.warning("limits: could not renew running calls: %s", describe(error))

    async def aclose(self) -> None:
        """Finish the releases under way, stop renewing, close the connections."""
        if self._releases:
            await asyncio.gather(*self._releases, return_exceptions=True)
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        await self._redis.aclose()


def _runs(check: Check) -> bool:
    return KIND.get(check.limit, "running") == "running"


def describe(error: BaseException) -> str:
    """An error in one line without its arguments' secrets (a URL's password never shows)."""
    return f"{type(error).__name__}: {error}".splitlines()[0][:300]
