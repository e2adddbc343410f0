"""Credentials in a session's tool results and resource reads, masked before the client or
the index sees them.

On unless the client's `mask_secrets` setting is off. What was masked is counted per kind
(the session report, the call's audit row, a metric) and logged by kind, never its content.
"""

from __future__ import annotations

import logging
from collections import Counter

import mcp_types as types

from gateway.operations.call_monitor import CallFacts
from gateway.operations.metrics import families as metrics
from indexing.api.secret_masking import mask_resource_now, mask_result

logger = logging.getLogger(__name__)
MASKED = "masked"
"""The guardrail decision counted for each credential masked: "masked:<kind>"."""


class ResponseMasking:
    """Masks one session's tool results as its client's settings say."""

    def __init__(self, enabled: bool, counts: Counter[str]) -> None:
        self.enabled = enabled
        self._counts = counts  # the session's guardrail counts (`SessionStats.guardrails`)

    async def mask(self, result: types.CallToolResult, call: CallFacts) -> types.CallToolResult:
        """The result as the client and the index may see it; the same object when nothing
        was masked."""
        if not self.enabled:
            return result
        masked, kinds = await mask_result(result)
        self._count(kinds, call)
        return masked

    def mask_resource(
        self, result: types.ReadResourceResult, call: CallFacts
    ) -> types.ReadResourceResult:
        """A resource read as the client may see it (resources are small: on this thread)."""
        if not self.enabled:
            return result
        masked, kinds = mask_resource_now(result)
        self._count(kinds, call)
        return masked

    def _count(self, kinds: Counter[str], call: CallFacts) -> None:
        """Count what was masked: session report, the call's audit row, metric, log."""
        if not kinds:
            return
        decisions = Counter({f"{MASKED}:{kind}": count for kind, count in kinds.items()})
        self._counts.update(decisions)
        call.guardrails.update(decisions)
        metrics.count_masked(kinds)
        logger.info(
            "masked %d credential(s) in a result of %s/%s for client %r: %s",
            kinds.total(),
            call.upstream,
            call.name,
            call.client_name,
            ", ".join(f"{kind} x{count}" for kind, count in sorted(kinds.items())),
        )
