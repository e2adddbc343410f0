"""Selectors for the session reports: one session's figures, the overview, live content.

Reads only. Indexed content is never in the database: a label's text is read from the
live session that owns it, through this worker's gateway, and is gone once it ends.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, Q, QuerySet, Sum, TextField
from django.db.models.functions import Cast, TruncDate
from django.utils import timezone

from indexing.engine.errors import IndexToolError
from indexing.engine.read import format_read
from indexing.reports.guardrail_counts import GuardrailRow, guardrail_rows
from indexing.reports.live_state import live_state
from indexing.reports.models import IndexedLabel, SessionRecord
from localrouter.tool_names import upstream_part

INDEX_TOOLS = "LocalRouter"
"""The group shown for calls that no upstream served (IndexSearch, IndexRead)."""
BYTES_PER_TOKEN = 4


def approx_tokens(size: int) -> int:
    """Roughly how many model tokens `size` bytes of text cost (about 4 bytes a token)."""
    return size // BYTES_PER_TOKEN


@dataclass(frozen=True)
class Savings:
    """Bytes that came in versus bytes that went out."""

    received: int
    delivered: int

    @property
    def saved(self) -> int:
        return self.received - self.delivered

    @property
    def percent(self) -> float:
        """Share of the received bytes the client never had to read (0 when nothing came)."""
        return 100.0 * self.saved / self.received if self.received else 0.0

    @property
    def tokens_received(self) -> int:
        return approx_tokens(self.received)

    @property
    def tokens_delivered(self) -> int:
        return approx_tokens(self.delivered)

    @property
    def tokens_saved(self) -> int:
        return approx_tokens(self.saved)


@dataclass(frozen=True)
class UpstreamCalls:
    """The calls of one session that went to one upstream, per tool."""

    upstream: str
    total: int
    tools: list[tuple[str, int]]


def upstream_of(tool: str) -> str:
    """The upstream a gateway tool name belongs to (`<upstream>__<tool>`)."""
    return upstream_part(tool) or INDEX_TOOLS


def calls_by_upstream(calls_by_tool: dict[str, int]) -> list[UpstreamCalls]:
    """Group `{tool: count}` by upstream, busiest upstream and tool first."""
    grouped: dict[str, list[tuple[str, int]]] = {}
    for tool, count in calls_by_tool.items():
        grouped.setdefault(upstream_of(tool), []).append((tool, int(count)))
    rows = [
        UpstreamCalls(
            upstream, sum(n for _, n in tools), sorted(tools, key=lambda t: (-t[1], t[0]))
        )
        for upstream, tools in grouped.items()
    ]
    return sorted(rows, key=lambda row: (-row.total, row.upstream))


def session_duration(record: SessionRecord) -> timedelta:
    """From start to end (or to the last activity while the session lives), whole seconds."""
    end = record.ended_at or record.last_activity_at
    return timedelta(seconds=max(0, round((end - record.started_at).total_seconds())))


@dataclass(frozen=True)
class SessionReport:
    """Everything the per-session report page shows."""

    record: SessionRecord
    labels: list[IndexedLabel]
    upstreams: list[UpstreamCalls]
    responses: Savings
    catalog: Savings
    alive: bool

    @property
    def duration(self) -> timedelta:
        return session_duration(self.record)

    @property
    def guardrails(self) -> list[GuardrailRow]:
        """The guardrail decisions counted in this session."""
        return guardrail_rows(self.record.guardrails or {})

    @property
    def indexed(self) -> Savings:
        """Only the responses that were indexed: what they were and what replaced them."""
        return Savings(
            sum(label.original_bytes for label in self.labels),
            sum(label.delivered_bytes for label in self.labels),
        )


def session_report(record: SessionRecord) -> SessionReport:
    """The report of one session (one query, for its labels)."""
    return SessionReport(
        record=record,
        labels=list(record.labels.order_by("id")),
        upstreams=calls_by_upstream(record.calls_by_tool or {}),
        responses=Savings(record.bytes_from_upstreams, record.bytes_to_client),
        catalog=Savings(record.catalog_bytes_before, record.catalog_bytes_after),
        alive=live_state().live_store(record.key) is not None,
    )


# Lists


def calls_text():
    """`calls_by_tool` as text, so sessions can be found by tool or upstream name."""
    return Cast("calls_by_tool", TextField())


def sessions_using_upstream(queryset: QuerySet, upstream: str) -> QuerySet:
    """Sessions that called at least one tool of `upstream`."""
    return queryset.alias(calls_text=calls_text()).filter(calls_text__contains=f'"{upstream}__')


def sessions_matching(queryset: QuerySet, term: str) -> QuerySet:
    """Sessions whose client, called tools, or indexed labels or tools contain `term`."""
    labels = IndexedLabel.objects.filter(Q(label__icontains=term) | Q(tool__icontains=term))
    return queryset.alias(calls_text=calls_text()).filter(
        Q(client_label__icontains=term)
        | Q(key__iexact=term)
        | Q(calls_text__icontains=term)
        | Q(pk__in=labels.values("session_id"))
    )


# Overview


@dataclass(frozen=True)
class PeriodSavings:
    """Savings of the sessions of one day or one client."""

    name: str
    sessions: int
    calls: int
    savings: Savings


@dataclass(frozen=True)
class Overview:
    """The figures of the overview page for the sessions since `since`."""

    since: date
    totals: PeriodSavings
    days: list[PeriodSavings]
    clients: list[PeriodSavings]
    tools: list[tuple[str, int]]
    biggest: list[IndexedLabel]


_SUMS = {
    "sessions": Count("id"),
    "calls": Sum("call_count", default=0),
    "received": Sum("bytes_from_upstreams", default=0),
    "delivered": Sum("bytes_to_client", default=0),
}


def _period(name: str, row: dict) -> PeriodSavings:
    return PeriodSavings(
        name, row["sessions"], row["calls"], Savings(row["received"], row["delivered"])
    )


def savings_by_day(queryset: QuerySet, since: date, until: date) -> list[PeriodSavings]:
    """One row per day from `since` to `until`, days without sessions included."""
    rows = {
        row["day"]: row
        for row in queryset.annotate(day=TruncDate("started_at"))
        .order_by()
        .values("day")
        .annotate(**_SUMS)
    }
    empty = {"sessions": 0, "calls": 0, "received": 0, "delivered": 0}
    days = (since + timedelta(days=n) for n in range((until - since).days + 1))
    return [_period(day.isoformat(), rows.get(day, empty)) for day in days]


def savings_by_client(queryset: QuerySet, limit: int = 15) -> list[PeriodSavings]:
    """The clients that received the most bytes, with their savings."""
    rows = (
        queryset.order_by()
        .values("client_label")
        .annotate(**_SUMS)
        .order_by("-received", "client_label")[:limit]
    )
    return [_period(row["client_label"], row) for row in rows]


def busiest_tools(queryset: QuerySet, limit: int = 10) -> list[tuple[str, int]]:
    """The most called tools, summed over the sessions' `calls_by_tool`."""
    counts: Counter[str] = Counter()
    for calls in queryset.values_list("calls_by_tool", flat=True).iterator(chunk_size=2000):
        counts.update({tool: int(n) for tool, n in (calls or {}).items()})
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]


def biggest_responses(queryset: QuerySet, limit: int = 10) -> list[IndexedLabel]:
    """The largest indexed responses of these sessions, with their session."""
    labels = IndexedLabel.objects.filter(session__in=queryset.order_by().values("pk"))
    return list(labels.select_related("session").order_by("-original_bytes", "id")[:limit])


def overview(*, days: int, client_id: int | None = None, now: datetime | None = None) -> Overview:
    """The overview of the last `days` days (today included), optionally of one client."""
    today = timezone.localdate(now or timezone.now())
    since = today - timedelta(days=days - 1)
    start = datetime.combine(since, datetime.min.time(), tzinfo=timezone.get_current_timezone())
    queryset = SessionRecord.objects.filter(started_at__gte=start)
    if client_id is not None:
        queryset = queryset.filter(client_id=client_id)
    totals = queryset.order_by().aggregate(**_SUMS)
    return Overview(
        since=since,
        totals=_period("total", totals),
        days=savings_by_day(queryset, since, today),
        clients=savings_by_client(queryset),
        tools=busiest_tools(queryset),
        biggest=biggest_responses(queryset),
    )


@dataclass(frozen=True)
class LabelContent:
    """One page of a label's text, or why there is none."""

    alive: bool
    text: str = ""
    error: str = ""


def label_content(
    record: SessionRecord, label: str, offset: str | None, limit: int | None
) -> LabelContent:
    """A page of an indexed label's lines, read from its live session."""
    store = live_state().live_store(record.key)
    if store is None:
        return LabelContent(alive=False)
    try:
        return LabelContent(alive=True, text=format_read(store, label, offset, limit))
    except IndexToolError as error:
        return LabelContent(alive=True, error=error.message)
