"""The worker's call monitor, put together from the settings: limits, metrics, audit, traces.

The observers run in this order: limits first (a refused call reaches no upstream), then
those that count what happened.
"""

from __future__ import annotations

from django.conf import settings

from gateway.operations.audit.observer import AuditObserver
from gateway.operations.call_monitor import CallMonitor, CallObserver
from gateway.operations.limits import call_limits
from gateway.operations.metrics.observer import MetricsObserver
from gateway.operations.spans import call_span


def build_call_monitor() -> CallMonitor:
    """The monitor every session of this worker reports its calls to."""
    observers: list[CallObserver] = [call_limits()]
    if settings.METRICS_TOKEN:  # nobody may scrape them otherwise: no cost per call
        observers.append(MetricsObserver())
    observers.append(AuditObserver(with_arguments=settings.AUDIT_ARGUMENTS))
    return CallMonitor(observers, span=call_span)
