"""Invalid bearer tokens on /mcp, throttled per client address.

`LOCALROUTER_TOKEN_FAILURE_LIMIT` invalid tokens from one address (an IPv6 /64) within the
window, and the address gets 429 with Retry-After for the lockout, before any token it sends
is looked at. Other addresses are not affected.

The check runs on every request, so it reads only this worker's memory. Failures are counted
in Django's cache (`localrouter.failure_throttle`), which Redis shares between workers: a
worker that has not seen an address's lock yet learns of it at the first invalid token it
gets from there.
"""

from __future__ import annotations

import math
import time

from asgiref.sync import sync_to_async
from django.conf import settings

from localrouter.client_address import address_bucket, scope_address
from localrouter.failure_throttle import FailureThrottle, ThrottleRule

LOCKS_KEPT = 10_000  # addresses locked at once in one worker's memory; the oldest go first


class TokenThrottle:
    """This worker's view of which client addresses are locked out, and until when."""

    def __init__(self) -> None:
        self._failures = FailureThrottle("mcp-token")
        self._locked: dict[str, float] = {}  # address bucket -> monotonic end of its lock

    def retry_after(self, scope: dict) -> int:
        """Whole seconds until the request's address may present a token again; 0: now."""
        if not self._locked:
            return 0  # nothing locked: the usual case costs one test
        bucket = _bucket(scope)
        end = self._locked.get(bucket) if bucket else None
        if end is None:
            return 0
        left = end - time.monotonic()
        if left <= 0:
            del self._locked[bucket]
            return 0
        return math.ceil(left)

    async def failed(self, scope: dict) -> None:
        """Count an invalid token from the request's address (locking it when over the limit)."""
        bucket = _bucket(scope)
        if bucket is None:
            return
        rule = ThrottleRule(
            settings.TOKEN_FAILURE_LIMIT,
            settings.TOKEN_FAILURE_WINDOW,
            settings.TOKEN_LOCKOUT_SECONDS,
        )
        # Off the event loop, as Redis is a network call; not in the thread of sync views.
        record = sync_to_async(self._failures.record_failure, thread_sensitive=False)
        seconds = await record(rule, bucket)
        if seconds:
            self._lock(bucket, seconds)

    def _lock(self, bucket: str, seconds: float) -> None:
        now = time.monotonic()
        self._locked.pop(bucket, None)
        if len(self._locked) >= LOCKS_KEPT:
            self._locked = {key: end for key, end in self._locked.items() if end > now}
        while len(self._locked) >= LOCKS_KEPT:
            del self._locked[next(iter(self._locked))]
        self._locked[bucket] = now + seconds


def _bucket(scope: dict) -> str | None:
    address = scope_address(scope)
    return address_bucket(address) if address else None


token_throttle = TokenThrottle()
