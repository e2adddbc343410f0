"""The worker's call monitor, put together from the settings: limits, metrics, audit, traces.

The observers run in this order: limits first (a refused call reaches no upstream), then
those that count what happened.
"""

from __future__ import annotations

from django.conf import settings

from gateway.audit.observer import AuditObserver
from gateway.call_monitor import CallMonitor, CallObserver
from gateway.limits import call_limits
from gateway.metrics.observer import MetricsObserver
from gateway.spans import call_span


def build_call_monitor() -> CallMonitor:
    """The monitor every session of this worker reports its calls to."""
    observers: list[CallObserver] = [call_limits()]
    if settings.METRICS_TOKEN:  # nobody may scrape them otherwise: no cost per call
        observers.append(MetricsObserver())
    observers.append(AuditObserver(with_arguments=settings.AUDIT_ARGUMENTS))
    return CallMonitor(observers, span=call_span)
