"""prune_sessions keeps the retention period; demo_data fills realistic sessions."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from clients.models import Client
from indexing.reports.models import IndexedLabel, SessionRecord
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def stored_session(key: str, days_idle: float) -> SessionRecord:
    last = timezone.now() - timedelta(days=days_idle)
    record = SessionRecord.objects.create(
        key=key,
        client_label="alice",
        protocol_version="2025-11-25",
        started_at=last - timedelta(hours=1),
        last_activity_at=last,
    )
    IndexedLabel.objects.create(
        session=record,
        label=f"{key}:1",
        tool="files__read",
        run=1,
        original_bytes=10,
        delivered_bytes=5,
        lines=1,
        chunks=1,
        seconds_to_index=0.0,
    )
    return record


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_prune_deletes_sessions_idle_longer_than_the_retention_setting(settings):
    settings.REPORT_RETENTION_DAYS = 30
    stored_session("old", 31)
    stored_session("recent", 29)
    assert "Deleted 1 session record(s) and 1 indexed label(s) older than 30" in run(
        "prune_sessions"
    )
    assert list(SessionRecord.objects.values_list("key", flat=True)) == ["recent"]
    assert IndexedLabel.objects.get().label == "recent:1"


def test_prune_takes_a_days_option():
    stored_session("two-days", 2)
    stored_session("today", 0)
    run("prune_sessions", "--days", "1")
    assert list(SessionRecord.objects.values_list("key", flat=True)) == ["today"]


@pytest.mark.parametrize("days", ["0", "-3"])
def test_prune_refuses_a_retention_below_one_day(days):
    stored_session("kept", 400)
    with pytest.raises(CommandError, match="at least 1"):
        call_command("prune_sessions", "--days", days)
    assert SessionRecord.objects.count() == 1


def test_demo_data_fills_sessions_with_labels_and_savings():
    assert "Created 50 demo session(s)" in run("demo_data", "--sessions", "50", "--days", "7")
    records = SessionRecord.objects.all()
    assert records.count() == 50
    assert {r.client_label for r in records} <= {
        "demo-alice",
        "demo-bob",
        "demo-carol",
        "demo-ci-bot",
    }
    assert not Client.objects.filter(is_active=True).exists()
    assert all(r.call_count == sum(r.calls_by_tool.values()) for r in records)
    assert all(r.bytes_to_client <= r.bytes_from_upstreams for r in records)
    assert IndexedLabel.objects.filter(original_bytes__gt=16_384).count() > 0
    oldest = timezone.now() - timedelta(days=7, minutes=1)
    assert not records.filter(started_at__lt=oldest).exists()


def test_demo_data_can_run_twice_and_clear_its_own_sessions():
    run("demo_data", "--sessions", "5")
    run("demo_data", "--sessions", "5")
    assert SessionRecord.objects.count() == 10
    assert "Removed 10 demo session(s) and 4 demo client(s)" in run(
        "demo_data", "--sessions", "3", "--clear"
    )
    assert SessionRecord.objects.count() == 3
    assert "Removed 3 demo session(s) and 4 demo client(s)" in run(
        "demo_data", "--sessions", "0", "--clear"
    )
    assert not SessionRecord.objects.exists() and not Client.objects.exists()


def test_demo_data_never_writes_to_a_real_client():
    real = ClientFactory(name="demo-alice")
    real_session = stored_session("real", 1)
    with pytest.raises(CommandError, match="not a demo client"):
        call_command("demo_data", "--sessions", "5")
    with pytest.raises(CommandError, match="not a demo client"):
        call_command("demo_data", "--sessions", "5", "--clear")
    assert list(SessionRecord.objects.all()) == [real_session]
    real.refresh_from_db()
    assert real.is_active


def test_demo_data_rejects_impossible_counts():
    with pytest.raises(CommandError, match="--sessions"):
        call_command("demo_data", "--sessions", "0")
