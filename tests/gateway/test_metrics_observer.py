"""MetricsObserver: calls counted by bounded labels only, refusals as `limit`."""

import pytest
from prometheus_client import REGISTRY

from gateway.operations.call_monitor import CallFacts, CallMonitor, CallRefused
from gateway.operations.metrics.observer import MetricsObserver

pytestmark = pytest.mark.anyio
CALLS = "localrouter_tool_calls_total"


class Limit:
    async def admit(self, call: CallFacts) -> None:
        raise CallRefused("calls_per_minute", "too many calls", retry_after=3)

    def finished(self, call: CallFacts) -> None:
        pass


def facts(name: str, *, upstream: str = "up", kind: str = "tool") -> CallFacts:
    return CallFacts(
        kind=kind, client_id=1, client_name="alice", session="s", upstream=upstream, name=name
    )


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def label_values() -> set[str]:
    """Every label value of every sample this process exports."""
    return {v for metric in REGISTRY.collect() for s in metric.samples for v in s.labels.values()}


async def test_a_refused_call_counts_as_a_limit_refusal_and_a_refused_tool_call():
    before = value("localrouter_refusals_total", reason="limit")
    calls = value(CALLS, upstream="up", tool="limited", outcome="refused")
    monitor = CallMonitor([Limit(), MetricsObserver()])
    with pytest.raises(CallRefused):
        async with monitor.call(facts("limited")):
            pass
    assert value("localrouter_refusals_total", reason="limit") == before + 1
    assert value(CALLS, upstream="up", tool="limited", outcome="refused") == calls + 1


async def test_an_unknown_tool_is_counted_without_the_name_the_client_gave():
    made_up = "up__made_up_by_the_client"
    before = value(CALLS, upstream="", tool="", outcome="unknown")
    call = facts(made_up, upstream="")
    call.fail("unknown", "unknown_tool")
    async with CallMonitor([MetricsObserver()]).call(call):
        pass
    assert value(CALLS, upstream="", tool="", outcome="unknown") == before + 1
    assert made_up not in label_values()


async def test_resources_are_counted_by_kind_not_by_uri():
    uri = "file:///home/alice/secret-plans.txt"
    before = value("localrouter_calls_total", kind="resource", upstream="files", outcome="ok")
    async with CallMonitor([MetricsObserver()]).call(facts(uri, upstream="files", kind="resource")):
        pass
    assert value("localrouter_calls_total", kind="resource", upstream="files", outcome="ok") == (
        before + 1
    )
    assert uri not in label_values()
