"""Every call a client makes, seen once: limits admit it, a span covers it, observers count it.

`GatewaySession` wraps each tools/call, resources/read, prompts/get and completion in
`CallMonitor.call(...)`. The monitor asks each observer to admit the call (a limit may
refuse it with `CallRefused`), opens the call's trace span around the work, and tells
every observer once the call has finished, with its outcome, duration and sizes. Metrics,
the audit trail and the limits are observers; none of them sits in the session's code.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

logger = logging.getLogger(__name__)

CallKind = Literal["tool", "index", "resource", "prompt", "completion"]
Outcome = Literal["ok", "error", "refused", "unknown"]
"""ok; error (the upstream failed or answered with an error); refused (a limit or policy
said no before the upstream was asked); unknown (no such tool, resource or prompt)."""


@dataclass
class CallFacts:
    """One call as the gateway saw it: who, what, and how it went (never its content)."""

    kind: CallKind
    client_id: int
    client_name: str
    session: str
    """The session's record id (2026-07-28 clients: their per-client session)."""
    upstream: str
    """'' for the index tools, which the gateway answers itself."""
    name: str
    """The tool or prompt name as the upstream knows it, the resource URI, the index tool;
    for an unknown one, what the client asked for (client text: never a metric label)."""
    arguments: dict[str, Any] | None = None
    """Kept for observers that are asked to record arguments; never logged by the monitor."""
    member: str = ""
    """The team member who owns the client ('' for clients without an owner)."""
    started_at: float = field(default_factory=time.time)
    outcome: Outcome = "ok"
    reason: str = ""
    """Why it was not ok, in a bounded vocabulary: an error kind or a limit's name."""
    duration: float = 0.0
    bytes_received: int = 0
    """UTF-8 bytes of the upstream's answer as received."""
    bytes_delivered: int = 0
    """UTF-8 bytes of the answer the client got (a placeholder when the answer was indexed)."""
    guardrails: Counter[str] = field(default_factory=Counter)
    """Guardrail decisions on this call, "<decision>" or "<decision>:<detail>" -> count
    (e.g. "masked:github token"), never content; the session report sums them."""

    def fail(self, outcome: Outcome, reason: str) -> None:
        """Mark the call as not ok (the first reason given stands)."""
        if self.outcome == "ok":
            self.outcome, self.reason = outcome, reason


class CallRefused(Exception):
    """A limit (or policy) refused a call before the upstream was asked."""

    def __init__(self, reason: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.retry_after = retry_after


class CallObserver(Protocol):
    """Something that sees every call: may refuse it first, is told when it ends."""

    async def admit(self, call: CallFacts) -> None:
        """Let the call go ahead, or refuse it.

        Raises:
            CallRefused: the call must not reach the upstream.
        """

    def finished(self, call: CallFacts) -> None:
        """The call ended: every observer is told of every call, refused ones too (an
        observer that holds something for an admitted call keeps track of that itself)."""


SpanFactory = Callable[[CallFacts], AbstractContextManager[Any]]


def _no_span(call: CallFacts) -> AbstractContextManager[Any]:
    return nullcontext()


class CallMonitor:
    """The one place every client call passes through, for this worker."""

    def __init__(
        self, observers: Iterable[CallObserver] = (), span: SpanFactory = _no_span
    ) -> None:
        self.observers = tuple(observers)
        self.span = span

    @asynccontextmanager
    async def call(self, call: CallFacts) -> AsyncIterator[CallFacts]:
        """Admit, cover with a span, and report one call; the body fills in its facts.

        Raises:
            CallRefused: an observer refused the call (every observer is still told it
                finished, refused).
        """
        begun = time.monotonic()
        with self.span(call):
            try:
                for observer in self.observers:
                    await observer.admit(call)
            except CallRefused as refusal:
                call.fail("refused", refusal.reason)
                self._finished(call, begun)
                raise
            try:
                yield call
            except BaseException as exc:
                call.fail("error", "cancelled" if _is_cancellation(exc) else "exception")
                raise
            finally:
                self._finished(call, begun)

    async def aclose(self) -> None:
        """Call `aclose()` on the observers that have one (queued rows, open connections)."""
        for observer in self.observers:
            close = getattr(observer, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception:  # one observer's failure must not keep the others open
                logger.exception("call observer %r failed to close", observer)

    def _finished(self, call: CallFacts, begun: float) -> None:
        call.duration = time.monotonic() - begun
        for observer in self.observers:
            try:
                observer.finished(call)
            except Exception:  # an observer's bug must not fail the client's call
                logger.exception("call observer %r failed", observer)


def _is_cancellation(exc: BaseException) -> bool:
    return isinstance(exc, asyncio.CancelledError | GeneratorExit)
