"""The limits' arithmetic, pure: sliding windows, UTC days, and waits as people read them.

The memory store runs these functions; the Redis store's Lua scripts do the same sums
inside Redis (tests/gateway/test_limit_stores.py holds both stores to one behaviour).
"""

from __future__ import annotations

import math
import time
from collections import deque

MINUTE = 60.0
DAY = 86_400.0


def window_wait(times: deque[float], limit: int, span: float, now: float) -> float | None:
    """Forget the calls that left the window; None if one more fits, else seconds to wait.

    `times` holds the moments of the calls admitted, oldest first: a call fits while fewer
    than `limit` of them are newer than `now - span`. When the window is full, room comes
    when the oldest call that keeps it full leaves it (with more calls than `limit`, after
    the limit was lowered, that is not the oldest of all).
    """
    while times and times[0] <= now - span:
        times.popleft()
    if len(times) < limit:
        return None
    return times[len(times) - limit] + span - now


def utc_day(now: float) -> str:
    """The UTC date of a moment, as `YYYY-MM-DD` (the key of a day's total)."""
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def seconds_to_next_utc_day(now: float) -> float:
    """Seconds from `now` to the next 00:00 UTC, when a day's totals start afresh."""
    return DAY - now % DAY


def wait_text(seconds: float) -> str:
    """A wait as people read it, rounded up: '12 s', '60 s', '3 min 5 s', '5 h 12 min'."""
    whole = max(1, math.ceil(seconds))
    if whole < 120:  # a minute's window reads in seconds
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(math.ceil(whole / 60), 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"
