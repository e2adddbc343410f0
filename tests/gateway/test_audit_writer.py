"""Call events are queued at once and written in batches; a database outage costs a bounded
queue and a counted warning, never a call."""

import logging
from datetime import UTC, datetime

import anyio
import pytest
from django.db import OperationalError

from gateway.operations.audit import writer as writer_module
from gateway.operations.audit.models import AuditEvent
from gateway.operations.audit.observer import AuditObserver
from gateway.operations.audit.writer import AuditWriter
from gateway.operations.call_monitor import CallFacts, CallMonitor, CallRefused

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]


def row(name: str) -> dict:
    return {"at": datetime.now(UTC), "kind": "tool", "client_name": "alice", "name": name}


async def names() -> list[str]:
    return [name async for name in AuditEvent.objects.order_by("id").values_list("name", flat=True)]


async def wait_for_rows(count: int) -> list[str]:
    with anyio.fail_after(10):
        while len(found := await names()) < count:
            await anyio.sleep(0.05)
    return found


async def test_a_full_batch_is_written_without_waiting_for_the_interval():
    writer = AuditWriter(flush_seconds=3600, batch=2)
    writer.add(row("a"))
    writer.add(row("b"))
    assert await wait_for_rows(2) == ["a", "b"]
    writer.add(row("c"))
    await writer.aclose()  # what is left is written at the end
    assert await names() == ["a", "b", "c"]


async def test_while_the_database_is_down_rows_wait_up_to_a_bound_then_are_dropped(
    monkeypatch, caplog
):
    real_write, down = writer_module._write, [True]

    def write(rows):
        if down[0]:
            raise OperationalError("database is locked")
        real_write(rows)

    monkeypatch.setattr(writer_module, "_write", write)
    writer = AuditWriter(flush_seconds=3600, batch=100, max_pending=3)
    for name in "abcde":
        writer.add(row(name))
    assert not await writer.flush()
    assert writer.pending == 3
    with caplog.at_level(logging.WARNING, logger="gateway.operations.audit.writer"):
        await writer.aclose()
    assert "3 event(s) lost at shutdown" in caplog.text
    down[0] = False
    assert await writer.flush()
    assert await names() == ["a", "b", "c"]


async def test_a_row_the_database_refuses_is_dropped_and_the_others_written(caplog):
    writer = AuditWriter(flush_seconds=3600)
    writer.add(row("before"))
    writer.add({**row("refused"), "kind": None})  # NOT NULL: never accepted
    writer.add(row("after"))
    with caplog.at_level(logging.ERROR, logger="gateway.operations.audit.writer"):
        await writer.aclose()
    assert await names() == ["before", "after"]
    assert "1 event(s) refused (IntegrityError), dropped" in caplog.text


async def test_the_queue_full_warning_counts_the_drops(caplog):
    writer = AuditWriter(flush_seconds=3600, batch=100, max_pending=1)
    with caplog.at_level(logging.WARNING, logger="gateway.operations.audit.writer"):
        writer.add(row("kept"))
        for _ in range(4):
            writer.add(row("dropped"))
        await writer.aclose()
    assert "1 dropped" in caplog.text  # the first drop warns at once
    assert "3 more event(s) dropped" in caplog.text  # the rest are counted by the end
    assert await names() == ["kept"]


def facts(name: str = "echo", **arguments) -> CallFacts:
    return CallFacts(
        kind="tool",
        client_id=7,
        client_name="alice",
        session="rec1",
        upstream="echo",
        name=name,
        arguments=arguments,
    )


class Refuse:
    async def admit(self, call: CallFacts) -> None:
        raise CallRefused("calls_per_minute", "too many calls")

    def finished(self, call: CallFacts) -> None:
        pass


async def test_the_observer_records_every_call_of_a_monitor_and_closes_with_it():
    monitor = CallMonitor([AuditObserver(AuditWriter(flush_seconds=3600))])
    async with monitor.call(facts("x" * 1000, token="secret-value")) as call:
        call.bytes_received = 5
    await monitor.aclose()
    event = await AuditEvent.objects.aget()
    assert (event.client_id, event.session, event.upstream, event.outcome) == (
        7,
        "rec1",
        "echo",
        "ok",
    )
    assert len(event.name) == 300 and event.bytes_received == 5
    assert event.arguments is None  # not asked for


async def test_refused_calls_are_recorded_and_arguments_kept_masked_when_asked():
    observer = AuditObserver(AuditWriter(flush_seconds=3600), with_arguments=True)
    monitor = CallMonitor([Refuse(), observer])
    with pytest.raises(CallRefused):
        async with monitor.call(facts(token="secret-value", text="Bearer abcdefghijklmn")):
            pass
    await monitor.aclose()
    event = await AuditEvent.objects.aget()
    assert (event.outcome, event.reason) == ("refused", "calls_per_minute")
    assert event.arguments == {"token": "***", "text": "Bearer [redacted]"}
