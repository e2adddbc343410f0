"""This worker's heartbeat in Redis: while it beats, the sessions it owns are alive.

The beat comes from a thread of its own, not from the event loop: a loop busy with a burst
of requests may not run a task for seconds, and a worker taken for gone would have its
sessions answered 404 elsewhere. A busy worker is alive (its requests wait, or get a
retryable 503); only a stopped or crashed process stops beating.

Each beat also learns whether the key was still there. Its `life` names the current
unbroken stretch of beats: a new one begins when a beat finds the key gone (it expired
while this worker could not reach Redis, or was deleted), since from then on other workers
may have taken over what this one owned (`owner_directory` trusts its remembered claims
only within the life they were made in).
"""

from __future__ import annotations

import logging
import threading

import redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

WORKER_PREFIX = "localrouter:worker:"
# A worker is gone after this many heartbeat periods without one: a beat may be late by
# seconds on an overloaded machine, and a live worker taken for gone loses its sessions.
LIFE_IN_BEATS = 10


class Heartbeat:
    """Renews `WORKER_PREFIX + channel` in Redis every `period` seconds, from a thread."""

    def __init__(self, url: str, period: float) -> None:
        self._redis = redis.Redis.from_url(url)
        self._key: str | None = None
        self._period = period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)
        # The current unbroken stretch of beats; None before the first and once stopped.
        self.life: object | None = None

    def start(self, channel: str) -> None:
        """Beat once now (before this worker claims anything), then every period."""
        self._key = WORKER_PREFIX + channel
        self._beat()
        self._thread.start()

    def _beat(self) -> None:
        life_ms = int(self._period * LIFE_IN_BEATS * 1000)
        try:
            previous = self._redis.set(self._key, b"1", px=life_ms, get=True)
        except (RedisError, OSError):  # Redis away for a moment: the next beat tries again
            logger.warning("could not renew this worker's heartbeat in Redis", exc_info=True)
            return
        if previous is None and not self._stop.is_set():
            self.life = object()  # the first beat, or the key had gone: a new life

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self._beat()

    def stop(self) -> None:
        """Stop beating and say so at once: relays still waiting on this worker end now."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(self._period + 5)
        self.life = None  # before the key goes: from then on others may take over
        if self._key is not None:
            try:
                self._redis.delete(self._key)
            except (RedisError, OSError):
                logger.warning("could not delete this worker's heartbeat; it expires by itself")
        self._redis.close()
