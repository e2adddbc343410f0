"""The limits observer: which calls count, and calls let through when Redis is down."""

import logging

import pytest

from clients.context_settings import resolve_settings
from gateway.operations.call_monitor import CallFacts, CallMonitor, CallRefused
from gateway.operations.limits.memory_store import MemoryLimitStore
from gateway.operations.limits.observer import CallLimits
from gateway.operations.limits.redis_store import RedisLimitStore
from gateway.sessions.identity import ClientIdentity
from gateway.sessions.registry import current_client

pytestmark = pytest.mark.anyio


class Overrides:
    def __init__(self, **values):
        self.__dict__.update(values)


@pytest.fixture
def alice():
    """Alice, allowed one call a minute, as the client of the request being served."""
    identity = ClientIdentity(
        id=1,
        name="alice",
        allowed_upstreams=None,
        settings=resolve_settings(Overrides(calls_per_minute=1), None),
    )
    token = current_client.set(identity)
    yield identity
    current_client.reset(token)


def facts(kind="tool", name="echo", client_id=1) -> CallFacts:
    return CallFacts(
        kind=kind, client_id=client_id, client_name="alice", session="s", upstream="u", name=name
    )


async def call(monitor: CallMonitor, facts: CallFacts) -> None:
    async with monitor.call(facts):
        pass


async def test_unknown_calls_and_completions_count_against_nothing(alice):
    monitor = CallMonitor([CallLimits(MemoryLimitStore())])
    unknown = facts(name="nothing")
    unknown.fail("unknown", "unknown_tool")
    await call(monitor, unknown)
    await call(monitor, facts(kind="completion"))
    await call(monitor, facts())  # the one call a minute
    with pytest.raises(CallRefused) as refused:
        await call(monitor, facts(kind="resource", name="fixture://hello"))
    assert refused.value.reason == "calls_per_minute"
    assert 0 < refused.value.retry_after <= 60


async def test_a_call_of_another_client_than_the_requests_is_not_counted(alice):
    monitor = CallMonitor([CallLimits(MemoryLimitStore())])
    for _ in range(3):
        await call(monitor, facts(client_id=2))
    await call(monitor, facts())


async def test_calls_go_through_with_one_warning_while_redis_is_unreachable(alice, caplog):
    limits = CallLimits(RedisLimitStore("redis://127.0.0.1:1/0", "unused:"))
    monitor = CallMonitor([limits])
    try:
        with caplog.at_level(logging.WARNING, logger="gateway.operations.limits.observer"):
            for _ in range(3):
                await call(monitor, facts())
    finally:
        await monitor.aclose()
    [warning] = caplog.records
    assert warning.getMessage().startswith(
        "limits not checked for 1 call(s): their store is unavailable (ConnectionError"
    )
    assert "calls go through unlimited until it answers" in warning.getMessage()
