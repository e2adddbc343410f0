"""What a client is told when a limit refuses its call: the limit, its value, when to retry."""

from __future__ import annotations

from dataclasses import dataclass

from clients.limit_settings import BYTES_PER_DAY, CONCURRENT_CALLS
from gateway.operations.call_monitor import CallRefused
from gateway.operations.limits.checks import Check
from gateway.operations.limits.windows import wait_text


@dataclass(frozen=True)
class Blocked:
    """A store's answer when a budget is used up."""

    check: Check
    used: int
    """Calls in the window, calls running, or bytes delivered today."""
    retry_after: float | None
    """Seconds until the budget has room again; None when that depends on running calls."""


def refusal(blocked: Blocked, client: str) -> CallRefused:
    """The refusal of a call, naming the limit, its value, whose it is and when to retry."""
    check = blocked.check
    whose = f"client {client!r}"
    if check.pattern:
        whose = f"tools matching {check.pattern!r} of {whose}"
    limit = f"Limit reached: {check.limit}={check.value} for {whose}"
    if check.limit == CONCURRENT_CALLS:
        message = f"{limit} ({blocked.used} running); retry when one of them has finished."
    elif check.limit == BYTES_PER_DAY:
        message = (
            f"{limit} ({blocked.used} bytes delivered since 00:00 UTC); "
            f"retry in {wait_text(blocked.retry_after or 0)}, at 00:00 UTC."
        )
    else:
        message = f"{limit}; retry in {wait_text(blocked.retry_after or 0)}."
    return CallRefused(check.limit, message, retry_after=blocked.retry_after)
