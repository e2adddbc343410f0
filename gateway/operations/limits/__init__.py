"""Per-client limits on calls: calls_per_minute, concurrent_calls, bytes_per_day, per tool.

`checks` says which budgets a call counts against, `windows` does the sums, the stores
keep the counts (`memory_store` in one worker, `redis_store` shared by all through
REDIS_URL), and `observer.CallLimits` admits or refuses each call in the call monitor.
"""

from __future__ import annotations

from django.conf import settings

from gateway.operations.limits.memory_store import MemoryLimitStore
from gateway.operations.limits.observer import CallLimits
from gateway.operations.limits.redis_store import RedisLimitStore
from gateway.operations.limits.store import LimitStore


def call_limits() -> CallLimits:
    """The limits observer for this worker: counts in Redis when REDIS_URL is set."""
    store: LimitStore
    if settings.REDIS_URL:
        store = RedisLimitStore(settings.REDIS_URL, settings.LIMITS_KEY_PREFIX)
    else:
        store = MemoryLimitStore()
    return CallLimits(store)
