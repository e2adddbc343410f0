"""Report selectors: per-session figures, the overview's aggregates, live label content."""

from datetime import UTC, datetime, timedelta

import pytest

from indexing.engine.store import SessionStore
from indexing.reports import summaries as reports
from indexing.reports.models import IndexedLabel, SessionRecord
from tests.engine_helpers import add_text
from tests.factories import ClientFactory

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def session_record(client=None, *, started=NOW, labels=(), **fields) -> SessionRecord:
    """A stored session with sensible defaults, and labels given as (label, original, delivered)."""
    record = SessionRecord.objects.create(
        key=fields.pop("key", f"k{SessionRecord.objects.count()}-{started:%s}"),
        client=client,
        client_label=client.name if client else "gone",
        protocol_version="2025-11-25",
        started_at=started,
        last_activity_at=fields.pop("last_activity_at", started + timedelta(minutes=5)),
        **fields,
    )
    for n, (label, original, delivered) in enumerate(labels, start=1):
        IndexedLabel.objects.create(
            session=record,
            label=label,
            tool=label.rsplit(":", 1)[0],
            run=n,
            original_bytes=original,
            delivered_bytes=delivered,
            lines=original // 40,
            chunks=3,
            seconds_to_index=0.01,
        )
    return record


def test_calls_are_grouped_by_upstream_busiest_first():
    grouped = reports.calls_by_upstream(
        {"files__read_text_file": 2, "github__search": 5, "files__list": 4, "IndexSearch": 1}
    )
    assert [(g.upstream, g.total) for g in grouped] == [
        ("files", 6),
        ("github", 5),
        ("LocalRouter", 1),
    ]
    assert grouped[0].tools == [("files__list", 4), ("files__read_text_file", 2)]


@pytest.mark.parametrize(
    ("received", "delivered", "percent", "tokens"),
    [(1000, 250, 75.0, 187), (0, 0, 0.0, 0), (400, 400, 0.0, 0)],
)
def test_savings_give_percent_and_approximate_tokens(received, delivered, percent, tokens):
    savings = reports.Savings(received, delivered)
    assert savings.percent == percent
    assert savings.tokens_saved == tokens


@pytest.mark.django_db
def test_a_session_report_has_its_labels_duration_and_savings():
    record = session_record(
        ClientFactory(name="alice"),
        ended_at=NOW + timedelta(minutes=3),
        bytes_from_upstreams=120_000,
        bytes_to_client=20_000,
        calls_by_tool={"files__read_text_file": 2},
        labels=[("files__read_text_file:1", 100_000, 4_000)],
    )
    report = reports.session_report(record)
    assert report.duration == timedelta(minutes=3)
    assert report.responses.saved == 100_000
    assert report.indexed == reports.Savings(100_000, 4_000)
    assert [label.label for label in report.labels] == ["files__read_text_file:1"]
    assert not report.alive


@pytest.mark.django_db
def test_sessions_are_found_by_upstream_tool_and_label():
    alice = ClientFactory(name="alice")
    files = session_record(
        alice, calls_by_tool={"files__read": 1}, labels=[("files__read:1", 9, 1)]
    )
    github = session_record(alice, calls_by_tool={"github__search": 3})
    everything = SessionRecord.objects.all()
    assert list(reports.sessions_using_upstream(everything, "github")) == [github]
    assert list(reports.sessions_matching(everything, "files__read:1")) == [files]
    assert list(reports.sessions_matching(everything, "SEARCH")) == [github]
    assert set(reports.sessions_matching(everything, "alice")) == {files, github}


@pytest.mark.django_db
def test_the_overview_sums_per_day_and_client_and_ranks_tools_and_responses():
    alice, bob = ClientFactory(name="alice"), ClientFactory(name="bob")
    session_record(
        alice,
        started=NOW - timedelta(days=1),
        call_count=3,
        bytes_from_upstreams=1000,
        bytes_to_client=100,
        calls_by_tool={"files__read": 2, "IndexRead": 1},
        labels=[("files__read:1", 900, 50)],
    )
    session_record(
        bob,
        call_count=4,
        bytes_from_upstreams=500,
        bytes_to_client=500,
        calls_by_tool={"files__read": 4},
        labels=[("files__read:1", 3000, 60)],
    )
    session_record(alice, started=NOW - timedelta(days=40), bytes_from_upstreams=10**9)

    overview = reports.overview(days=7, now=NOW)

    assert overview.totals.sessions == 2
    assert overview.totals.savings == reports.Savings(1500, 600)
    assert len(overview.days) == 7
    assert [(d.name, d.sessions) for d in overview.days[-2:]] == [
        ("2026-03-09", 1),
        ("2026-03-10", 1),
    ]
    assert [c.name for c in overview.clients] == ["alice", "bob"]
    assert overview.tools == [("files__read", 6), ("IndexRead", 1)]
    assert [label.original_bytes for label in overview.biggest] == [3000, 900]
    assert reports.overview(days=7, now=NOW, client_id=bob.pk).totals.sessions == 1


@pytest.mark.django_db
def test_label_content_is_read_from_the_live_session_and_gone_after(live_stores):
    record = session_record(labels=[("files__read:1", 30, 10)])
    store = SessionStore()
    add_text(store, "files__read:1", "first line\nsecond line\n", tool="files__read", run=1)
    live_stores[record.key] = store

    content = reports.label_content(record, "files__read:1", None, None)
    assert content.alive
    assert content.text == "1: first line\n2: second line\n[the text ends with a newline]"
    last = reports.label_content(record, "files__read:1", "2", 1).text
    assert last == "2: second line\n[the text ends with a newline]"
    assert "past the end" in reports.label_content(record, "files__read:1", "9", None).error

    del live_stores[record.key]  # the session ended
    assert reports.label_content(record, "files__read:1", None, None) == reports.LabelContent(
        alive=False
    )
