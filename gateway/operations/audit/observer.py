"""The audit trail's `CallObserver`: one row per call, queued at once and written later."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gateway.operations.audit.arguments import bounded_arguments
from gateway.operations.audit.models import NAME_MAX
from gateway.operations.audit.writer import AuditWriter
from gateway.operations.call_monitor import CallFacts


def call_row(call: CallFacts, *, with_arguments: bool) -> dict[str, Any]:
    """The `AuditEvent` fields of a finished call: who, what, how it went (never content)."""
    return {
        "at": datetime.fromtimestamp(call.started_at, UTC),
        "kind": call.kind,
        "client_id": call.client_id,
        "client_name": call.client_name[:100],
        "member": call.member[:150],
        "session": call.session[:64],
        "upstream": call.upstream[:48],
        # For an unknown tool this is the client's own text: bounded like the rest.
        "name": call.name[:NAME_MAX],
        "outcome": call.outcome,
        "reason": call.reason[:64],
        "duration": call.duration,
        "bytes_received": call.bytes_received,
        "bytes_delivered": call.bytes_delivered,
        "guardrails": dict(call.guardrails),
        # A bounded copy (its text is masked by the writer, off the call's path).
        "arguments": (
            bounded_arguments(call.arguments)
            if with_arguments and call.arguments is not None
            else None
        ),
    }


class AuditObserver:
    """Records every call the monitor sees, refused and unknown ones included; admits all."""

    def __init__(self, writer: AuditWriter | None = None, *, with_arguments: bool = False) -> None:
        self.writer = writer or AuditWriter()
        self.with_arguments = with_arguments

    async def admit(self, call: CallFacts) -> None:
        return None

    def finished(self, call: CallFacts) -> None:
        self.writer.add(call_row(call, with_arguments=self.with_arguments))

    async def aclose(self) -> None:
        """Write what is still queued."""
        await self.writer.aclose()
