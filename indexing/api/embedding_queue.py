"""The worker's queue of responses waiting for vectors: newest first, bounded, one thread.

A MiB of text takes minutes of CPU to embed, so the newest response goes first (the one an
agent is about to search), at most `cap` wait (the oldest is dropped beyond that: its
`drop` runs, and it is searched by keywords alone), and one daemon thread runs them at a
lower priority than serving, so that the process exits without waiting for them, pausing
between steps so as to use at most `cpu_share` of one CPU. The queue
estimates when a response's vectors are due from the seconds per byte its last jobs took.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger(__name__)
EMBEDDING_NICENESS = 10
FIRST_SECONDS_PER_BYTE = 150 / 2**20  # measured on the 2-core test machine (2.5 min a MiB)


@dataclass(eq=False)
class Job:
    """One response to embed: its label and size (bytes), the work and what a drop does."""

    label: str
    size: int
    run: Callable[[], None]
    drop: Callable[[], None]


class EmbeddingQueue:
    """Jobs run newest first on one thread; at most `cap` waiting."""

    def __init__(self, cap: int, cpu_share: float = 1.0) -> None:
        self.cap = cap
        self.cpu_share = cpu_share
        self.seconds_per_byte = FIRST_SECONDS_PER_BYTE
        self._waiting: deque[Job] = deque()  # newest last
        self._running: tuple[Job, float] | None = None
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, job: Job) -> None:
        """Queue `job` first in line; drop the oldest waiting beyond `cap`."""
        dropped = []
        with self._changed:
            self._waiting.append(job)
            while len(self._waiting) > max(self.cap, 0):
                dropped.append(self._waiting.popleft())
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="response-embeddings", daemon=True
                )
                self._thread.start()
            self._changed.notify()
        for old in dropped:
            logger.warning(
                "embedding queue full (%d waiting): %s (%d bytes) dropped, searched by "
                "keywords alone",
                self.cap,
                old.label,
                old.size,
            )
            old.drop()

    def due_in(self, job: Job | None) -> float:
        """Seconds until `job`'s vectors are expected (inf for a job not queued): what the
        running job has left, and the jobs that go before it, at the measured rate. Once the
        running job takes longer than that rate says (a loaded machine), when it ends is not
        known: inf for it and every job behind it (not 0, which had a search wait for it in
        vain, then rank by keywords without saying that vectors were coming)."""
        now = time.monotonic()
        with self._changed:
            left = 0.0
            if self._running is not None:
                running, started = self._running
                left = started + running.size * self.seconds_per_byte - now
                if left <= 0:
                    left = math.inf
                if running is job:
                    return left
            waiting = list(self._waiting)
        if job not in waiting:
            return math.inf
        ahead = waiting[waiting.index(job) :]  # itself and the newer ones
        return left + sum(other.size for other in ahead) * self.seconds_per_byte

    def pace(self, cpu_seconds: float) -> None:
        """After a step of `cpu_seconds`, sleep so that the thread uses at most `cpu_share`
        of one CPU (1: no pause)."""
        if 0 < self.cpu_share < 1:
            time.sleep(cpu_seconds * (1 - self.cpu_share) / self.cpu_share)

    def _run(self) -> None:
        # Below the event loop's priority: serving calls comes first (Linux nices a thread alone).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), EMBEDDING_NICENESS)
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._waiting)
                job = self._waiting.pop()
                started = time.monotonic()
                self._running = (job, started)
            try:
                job.run()
            except Exception:
                logger.exception("Embedding a compressed response failed")
            finally:
                with self._changed:
                    self._running = None
                    self._learn(time.monotonic() - started, job.size)

    def _learn(self, seconds: float, size: int) -> None:
        """Follow the rate of jobs that did embed (quick ones were reused or skipped)."""
        if size and seconds > 0.05:
            self.seconds_per_byte = 0.7 * self.seconds_per_byte + 0.3 * seconds / size


_queue: EmbeddingQueue | None = None
_queue_lock = threading.Lock()


def embedding_queue(cap: int, cpu_share: float = 1.0) -> EmbeddingQueue:
    """The worker's queue (made on first use; `cap` and `cpu_share` as the latest caller
    says)."""
    global _queue
    with _queue_lock:
        if _queue is None:
            _queue = EmbeddingQueue(cap)
        _queue.cap, _queue.cpu_share = cap, cpu_share
        return _queue
