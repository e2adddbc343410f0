"""The session recorder's database write: a record and its labels land together or not at all."""

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError

from gateway.sessions.records import _write
from indexing.reports.models import SessionRecord

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
FIELDS = {
    "client_label": "alice",
    "protocol_version": "2025-11-25",
    "started_at": NOW,
    "last_activity_at": NOW,
}


def _label(name: str) -> dict:
    return {
        "label": name,
        "tool": "fs__read",
        "run": 1,
        "original_bytes": 40_000,
        "delivered_bytes": 900,
        "lines": 800,
        "chunks": 12,
        "seconds_to_index": 0.01,
    }


@pytest.mark.django_db
def test_a_record_is_saved_with_its_labels_and_a_label_is_added_once():
    _write([("s1", FIELDS, [_label("a:1")])], seen=[])
    _write([("s1", {**FIELDS, "call_count": 2}, [_label("a:1"), _label("a:2")])], seen=[])
    record = SessionRecord.objects.get(key="s1")
    assert record.call_count == 2
    assert sorted(record.labels.values_list("label", flat=True)) == ["a:1", "a:2"]


@pytest.mark.django_db(transaction=True)
def test_a_failed_label_write_leaves_no_record_behind():
    with pytest.raises(IntegrityError):
        _write([("s2", FIELDS, [_label("a:1"), _label("a:1")])], seen=[])
    assert not SessionRecord.objects.filter(key="s2").exists()
