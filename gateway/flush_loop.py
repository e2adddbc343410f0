"""A background task that writes what was collected in memory: every few seconds, or at once
when woken, one write at a time (SQLite allows a single writer, and a write cut short by a
cancellation would go on in its thread while the next one waits for the lock)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


class FlushLoop:
    """Calls `flush()` every `seconds()` or when `wake()`d, from a task started on first use."""

    def __init__(
        self, name: str, flush: Callable[[], Awaitable[object]], seconds: Callable[[], float]
    ) -> None:
        self._name = name
        self._flush = flush
        self._seconds = seconds
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.closing = False

    def start(self) -> None:
        """Make sure the task runs (no-op once running, or after `aclose`)."""
        if self._task is None and not self.closing:
            self._task = asyncio.create_task(self._run(), name=self._name)

    def wake(self) -> None:
        """Flush now rather than at the next tick."""
        self._wake.set()

    async def _run(self) -> None:
        while not self.closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._seconds())
            self._wake.clear()
            await self._flush()

    async def aclose(self) -> None:
        """Let the running flush end and stop the task; the owner writes what is left."""
        self.closing = True
        if self._task is not None:
            self._wake.set()
            await self._task
            self._task = None
