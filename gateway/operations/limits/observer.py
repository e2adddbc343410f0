"""Limits as a call observer: admit a call only within its client's budgets, then free them.

The budgets are the client's effective settings in the identity of the request being
served (`current_client`, looked up again within seconds of a change), so a limit set in
the admin reaches sessions that are already open. A store that cannot be asked (Redis down)
lets calls through: limits fail open, with a warning in the log at most once a minute.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass

from gateway.operations.call_monitor import CallFacts
from gateway.operations.limits.checks import Check, checks_for
from gateway.operations.limits.refusals import refusal
from gateway.operations.limits.store import LimitStore, LimitStoreUnavailable
from gateway.operations.limits.windows import utc_day
from gateway.sessions.registry import current_client

logger = logging.getLogger(__name__)

WARN_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class Held:
    """What an admitted call counts against until it finishes."""

    client_id: int
    checks: tuple[Check, ...]
    call: str


class CallLimits:
    """The `CallObserver` that enforces calls_per_minute, concurrent_calls, bytes_per_day
    and per-tool limits."""

    def __init__(self, store: LimitStore) -> None:
        self.store = store
        self._held: dict[int, Held] = {}  # id(CallFacts) of each admitted call
        self._warned_at: float | None = None
        self._unchecked = 0

    async def admit(self, call: CallFacts) -> None:
        """Count the call against its client's budgets.

        Raises:
            CallRefused: a budget is used up (reason: the limit's name).
        """
        identity = current_client.get()
        if identity is None or identity.id != call.client_id:
            return  # not an MCP request of this client (nothing to count it against)
        checks = checks_for(call, identity.settings, utc_day(time.time()))
        if not checks:
            return
        name = uuid.uuid4().hex
        try:
            blocked = await self.store.acquire(call.client_id, checks, name)
        except LimitStoreUnavailable as error:
            self._let_through(str(error))
            return
        if blocked is not None:
            raise refusal(blocked, call.client_name)
        self._held[id(call)] = Held(call.client_id, checks, name)

    def finished(self, call: CallFacts) -> None:
        """Free the call's running slots and count the bytes it delivered."""
        held = self._held.pop(id(call), None)
        if held is not None:
            self.store.release(held.client_id, held.checks, held.call, call.bytes_delivered)

    async def aclose(self) -> None:
        await self.store.aclose()

    def _let_through(self, why: str) -> None:
        self._unchecked += 1
        now = time.monotonic()
        if self._warned_at is None or now - self._warned_at >= WARN_EVERY_SECONDS:
            logger.warning(
                "limits not checked for %d call(s): their store is unavailable (%s); "
                "calls go through unlimited until it answers",
                self._unchecked,
                why,
            )
            self._warned_at, self._unchecked = now, 0
