"""Exponential backoff between restarts of a failing upstream."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio


@dataclass
class Backoff:
    """Counts consecutive failures; after the second one, each restart waits twice as long."""

    initial: float = 0.5
    maximum: float = 30.0
    failures: int = 0
    _not_before: float = field(default=0.0, repr=False)

    def record_failure(self) -> None:
        """Note a failed start or a crash; the first one allows an immediate retry."""
        self.failures += 1
        delay = (
            0.0
            if self.failures == 1
            else min(self.maximum, self.initial * 2 ** (self.failures - 2))
        )
        self._not_before = anyio.current_time() + delay

    def record_success(self) -> None:
        """Forget past failures."""
        self.failures = 0
        self._not_before = 0.0

    def remaining(self) -> float:
        """Seconds until the next attempt is allowed (0 when it is allowed now)."""
        return max(0.0, self._not_before - anyio.current_time())
