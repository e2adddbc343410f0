"""CallMonitor: every observer hears of every call once, refused and failed ones too."""

import anyio
import pytest

from gateway.operations.call_monitor import CallFacts, CallMonitor, CallRefused

pytestmark = pytest.mark.anyio


def facts(name: str = "echo") -> CallFacts:
    return CallFacts(
        kind="tool", client_id=1, client_name="alice", session="s", upstream="u", name=name
    )


class Observer:
    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.seen: list[tuple[str, str, str, bool]] = []

    async def admit(self, call: CallFacts) -> None:
        if self.refuse:
            raise CallRefused("calls_per_minute", "too many calls", retry_after=3)

    def finished(self, call: CallFacts) -> None:
        self.seen.append((call.name, call.outcome, call.reason, call.duration >= 0))


async def test_a_call_that_went_well_is_reported_once_with_its_facts():
    first, second = Observer(), Observer()
    monitor = CallMonitor([first, second])
    async with monitor.call(facts()) as call:
        call.bytes_received = 10
    assert first.seen == second.seen == [("echo", "ok", "", True)]


async def test_a_refused_call_raises_and_every_observer_still_hears_of_it():
    limit, counter = Observer(refuse=True), Observer()
    monitor = CallMonitor([limit, counter])
    body_ran = False
    with pytest.raises(CallRefused) as refused:
        async with monitor.call(facts()):
            body_ran = True
    assert not body_ran
    assert refused.value.retry_after == 3
    assert counter.seen == [("echo", "refused", "calls_per_minute", True)]


async def test_the_first_failure_reason_stands_and_a_cancelled_call_says_so():
    observer = Observer()
    monitor = CallMonitor([observer])
    async with monitor.call(facts("a")) as call:
        call.fail("error", "timeout")
        call.fail("error", "tool_error")
    with anyio.CancelScope() as scope:
        async with monitor.call(facts("b")):
            scope.cancel()
            await anyio.sleep(1)
    assert observer.seen == [("a", "error", "timeout", True), ("b", "error", "cancelled", True)]


async def test_an_observer_that_breaks_does_not_fail_the_call(caplog):
    class Broken(Observer):
        def finished(self, call: CallFacts) -> None:
            raise RuntimeError("bug")

    after = Observer()
    monitor = CallMonitor([Broken(), after])
    async with monitor.call(facts()):
        pass
    assert after.seen == [("echo", "ok", "", True)]
    assert "call observer" in caplog.text
