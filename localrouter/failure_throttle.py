"""Failures counted per key (a client address, a user name) in Django's cache: a key with too
many failures within a window is locked for a while.

The counts live in the cache, so with Redis (`REDIS_URL`) every worker sees the same ones;
with the in-memory cache each process counts its own. Keys are hashed, so neither user names
nor addresses are written to the cache in clear. When the cache fails, nothing is locked:
a broken Redis must not lock every administrator out.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass

from django.core.cache import cache

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ThrottleRule:
    """`limit` failures within `window` seconds lock a key for `lockout` seconds."""

    limit: int  # 0: never lock
    window: float
    lockout: float


class FailureThrottle:
    """Failure counts and locks for one kind of attempt (`name` keeps kinds apart)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _keys(self, key: str) -> tuple[str, str]:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return f"throttle:{self._name}:count:{digest}", f"throttle:{self._name}:lock:{digest}"

    def locked_for(self, *keys: str) -> int:
        """Whole seconds until every one of `keys` may try again; 0 when none is locked."""
        try:
            ends = cache.get_many([self._keys(key)[1] for key in keys]).values()
        except Exception as error:  # the cache is a service of its own: see the docstring
            self._cache_failed(error)
            return 0
        now = time.time()
        return max((math.ceil(end - now) for end in ends if end > now), default=0)

    def record_failure(self, rule: ThrottleRule, *keys: str) -> int:
        """Count one failure against each key; the seconds any of them is now locked for."""
        if rule.limit <= 0:
            return 0
        try:
            return max((self._count(rule, key) for key in keys), default=0)
        except Exception as error:  # the cache is a service of its own: see the docstring
            self._cache_failed(error)
            return 0

    def clear(self, key: str) -> None:
        """Forget the failures counted against `key` (not a lock already set)."""
        try:
            cache.delete(self._keys(key)[0])
        except Exception as error:  # the cache is a service of its own: see the docstring
            self._cache_failed(error)

    def _count(self, rule: ThrottleRule, key: str) -> int:
        count_key, lock_key = self._keys(key)
        locked = self.locked_for(key)
        if locked:
            return locked  # counted already (by another worker, whose lock this one missed)
        # The count expires `window` seconds after the first failure it holds.
        cache.add(count_key, 0, timeout=rule.window)
        try:
            count = cache.incr(count_key)
        except ValueError:  # expired between the two calls
            cache.set(count_key, count := 1, timeout=rule.window)
        if count < rule.limit:
            return 0
        cache.set(lock_key, time.time() + rule.lockout, timeout=rule.lockout)
        cache.delete(count_key)
        logger.warning(
            "%s: too many failures from one source; locked for %g s", self._name, rule.lockout
        )
        return math.ceil(rule.lockout)

    def _cache_failed(self, error: Exception) -> None:
        logger.warning(
            "%s: the cache failed (%s); not throttling", self._name, type(error).__name__
        )
