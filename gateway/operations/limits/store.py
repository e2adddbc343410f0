"""Where the limits' counts live: what a store does, and how it says it cannot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gateway.operations.limits.checks import Check
from gateway.operations.limits.refusals import Blocked


class LimitStoreUnavailable(Exception):
    """The store could not be asked (Redis down or slow): the call is let through."""


class LimitStore(Protocol):
    """Counts per client: calls in the last minute, calls running, bytes delivered today."""

    async def acquire(self, client_id: int, checks: Sequence[Check], call: str) -> Blocked | None:
        """Count the call against every budget at once, or against none if one is used up.

        `call` names the call uniquely (its place in the windows and running counts).

        Raises:
            LimitStoreUnavailable: the counts could not be read or written.
        """

    def release(self, client_id: int, checks: Sequence[Check], call: str, delivered: int) -> None:
        """The call ended: free its running slots and add its bytes to the day's totals (a
        store that must wait for an answer does so in the background)."""

    async def aclose(self) -> None:
        """Let go of connections and background work."""
