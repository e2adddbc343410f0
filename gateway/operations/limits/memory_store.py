"""The limits' counts in this process: enough when one worker serves every client."""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence

from clients.limit_settings import BYTES_PER_DAY, CALLS_PER_MINUTE
from gateway.operations.limits.checks import Check
from gateway.operations.limits.refusals import Blocked
from gateway.operations.limits.windows import MINUTE, seconds_to_next_utc_day, window_wait


class MemoryLimitStore:
    """Sliding windows, running counts and daily totals in dictionaries (asyncio makes each
    method atomic: none of them awaits)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self._wall_clock = wall_clock
        self._windows: dict[str, deque[float]] = defaultdict(deque)
        self._running: dict[str, int] = defaultdict(int)
        self._totals: dict[str, int] = {}

    async def acquire(self, client_id: int, checks: Sequence[Check], call: str) -> Blocked | None:
        """Count the call against every budget, or none if one is used up."""
        now = self._clock()
        for check in checks:
            blocked = self._blocked(f"{client_id}:{check.key}", check, now)
            if blocked is not None:
                return blocked
        for check in checks:
            key = f"{client_id}:{check.key}"
            if check.limit == CALLS_PER_MINUTE:
                self._windows[key].append(now)
            elif check.limit != BYTES_PER_DAY:
                self._running[key] += 1
        return None

    def _blocked(self, key: str, check: Check, now: float) -> Blocked | None:
        if check.limit == CALLS_PER_MINUTE:
            window = self._windows[key]
            wait = window_wait(window, check.value, MINUTE, now)
            if not window:
                del self._windows[key]  # nobody's count stays behind once its window is empty
            return None if wait is None else Blocked(check, len(window), wait)
        if check.limit == BYTES_PER_DAY:
            used = self._totals.get(key, 0)
            if used < check.value:
                return None
            return Blocked(check, used, seconds_to_next_utc_day(self._wall_clock()))
        running = self._running.get(key, 0)
        return Blocked(check, running, None) if running >= check.value else None

    def release(self, client_id: int, checks: Sequence[Check], call: str, delivered: int) -> None:
        """Free the call's running slots and add its bytes to the day's totals."""
        for check in checks:
            key = f"{client_id}:{check.key}"
            if check.limit == BYTES_PER_DAY:
                if delivered:
                    self._forget_other_days(key, check.day)
                    self._totals[key] = self._totals.get(key, 0) + delivered
            elif check.limit != CALLS_PER_MINUTE:
                self._running[key] -= 1
                if self._running[key] <= 0:
                    del self._running[key]

    def _forget_other_days(self, key: str, day: str) -> None:
        """A new day's first total drops the earlier days' ones (their keys end in the day)."""
        if key in self._totals:
            return
        stem = key.removesuffix(day)
        for old in [k for k in self._totals if k.startswith(stem)]:
            del self._totals[old]

    async def aclose(self) -> None:
        """Nothing to let go of."""
