"""The worker's call monitor, put together from the settings: limits, metrics, audit, traces.

The observers run in this order: limits first (a refused call reaches no upstream), then
those that count what happened.
"""

from __future__ import annotations

from django.conf import settings

from gateway.audit.observer import AuditObserver
from gateway.call_monitor import CallMonitor, CallObserver


def build_call_monitor() -> CallMonitor:
    """The monitor every session of this worker reports its calls to."""
    observers: list[CallObserver] = []
    observers.append(AuditObserver(with_arguments=settings.AUDIT_ARGUMENTS))
    return CallMonitor(observers)
