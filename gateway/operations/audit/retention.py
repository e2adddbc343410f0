"""The audit trail's one deletion path: events past the retention period."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from gateway.operations.audit.models import AuditEvent


def audit_events_prune(*, days: int) -> int:
    """Delete the events older than `days` days; the number deleted."""
    return AuditEvent.objects.prune(timezone.now() - timedelta(days=days))
