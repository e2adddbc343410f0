"""The call monitor's observer that counts every client call in the metrics."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from gateway.operations.call_monitor import CallFacts
from gateway.operations.metrics import families as m

COUNTED_AS_TOOLS = ("tool", "index")


class _Children(NamedTuple):
    """The labelled metrics one kind of call updates (`labels()` costs microseconds)."""

    tool_calls: Any
    calls: Any
    duration: Any
    received: Any
    delivered: Any


@functools.cache  # bounded: every label comes from the configuration or a fixed vocabulary
def _children(kind: str, upstream: str, tool: str, outcome: str) -> _Children:
    return _Children(
        m.TOOL_CALLS.labels(upstream, tool, outcome) if kind in COUNTED_AS_TOOLS else None,
        m.CALLS.labels(kind, upstream, outcome),
        m.CALL_DURATION.labels(kind, upstream),
        m.UPSTREAM_RECEIVED.labels(upstream),
        m.CLIENT_DELIVERED.labels(upstream),
    )


class MetricsObserver:
    """Counts calls by upstream, tool and outcome, their durations and bytes; admits all."""

    async def admit(self, call: CallFacts) -> None:
        return None

    def finished(self, call: CallFacts) -> None:
        outcome = call.outcome
        # An unknown tool's name is the client's own text: never a label.
        tool = "" if outcome == "unknown" or call.kind not in COUNTED_AS_TOOLS else call.name
        children = _children(call.kind, call.upstream, tool, outcome)
        if children.tool_calls is not None:
            children.tool_calls.inc()
        children.calls.inc()
        children.duration.observe(call.duration)
        if call.bytes_received:
            children.received.inc(call.bytes_received)
        if call.bytes_delivered:
            children.delivered.inc(call.bytes_delivered)
        if outcome == "refused":
            m.REFUSALS.labels("limit").inc()
