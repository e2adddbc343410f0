"""One refresh at a time per grant: across workers with Redis (REDIS_URL), else in this process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import redis.asyncio as redis
from django.conf import settings

LOCK_SECONDS = 30.0
"""How long a lock outlives a worker that died holding it; a refresh takes far less."""

_process_locks: dict[int, asyncio.Lock] = {}


@asynccontextmanager
async def grant_lock(grant_id: int) -> AsyncIterator[None]:
    """Hold the refresh lock of grant `grant_id`."""
    if settings.REDIS_URL:
        client = redis.from_url(settings.REDIS_URL)
        try:
            name = f"{settings.GRANT_LOCK_PREFIX}{grant_id}"
            async with client.lock(name, timeout=LOCK_SECONDS, blocking_timeout=LOCK_SECONDS):
                yield
        finally:
            await client.aclose()
        return
    lock = _process_locks.setdefault(grant_id, asyncio.Lock())
    async with lock:
        yield
