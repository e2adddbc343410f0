"""A client's tool usage is read from its session records: counts, recency, no content."""

from datetime import UTC, datetime, timedelta

import pytest

from indexing.reports.models import SessionRecord
from indexing.reports.tool_usage import client_tool_usage
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def session(client, days_ago: float, calls: dict) -> None:
    last = NOW - timedelta(days=days_ago)
    SessionRecord.objects.create(
        key=f"k{SessionRecord.objects.count()}",
        client=client,
        client_label=client.name,
        protocol_version="2025-11-25",
        started_at=last - timedelta(minutes=5),
        last_activity_at=last,
        calls_by_tool=calls,
    )


def test_usage_counts_recent_calls_more_and_leaves_out_the_index_tools():
    erin, other = ClientFactory(name="erin"), ClientFactory(name="other")
    session(erin, 0, {"files__read": 4, "IndexSearch": 9})
    session(erin, 7, {"files__read": 2, "github__search": 4})
    session(erin, 40, {"jira__search": 50})  # outside the window
    session(other, 0, {"slack__post": 3})
    assert client_tool_usage(erin.pk, now=NOW) == {"files__read": 5.0, "github__search": 2.0}
