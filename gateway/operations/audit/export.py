"""Audit events as JSON lines: one object per event, oldest first, for the admin and the command."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.db.models import QuerySet
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone

from gateway.operations.audit.models import AuditEvent, Kind

CALL_FIELDS = (
    "client_id", "client_name", "member", "session", "upstream", "name", "outcome", "reason",
    "duration", "bytes_received", "bytes_delivered", "guardrails", "arguments",
)  # fmt: skip
CHANGE_FIELDS = (
    "actor", "action", "object_type", "object_id", "name", "fields", "client_id", "client_name",
    "upstream",
)  # fmt: skip
CHUNK = 2000


def audit_events(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    client: str | None = None,
    kind: str | None = None,
) -> QuerySet[AuditEvent]:
    """The events at or after `since` and before `until`, of one client (by its name at
    the time) or kind if given, oldest first."""
    events = AuditEvent.objects.all()
    if since is not None:
        events = events.filter(at__gte=since)
    if until is not None:
        events = events.filter(at__lt=until)
    if client is not None:
        events = events.filter(client_name=client)
    if kind is not None:
        events = events.filter(kind=kind)
    return events.order_by("at", "id")


def event_object(row: dict[str, Any]) -> dict[str, Any]:
    """The exported form of one event (a `values()` row): the fields of its kind only."""
    fields = CHANGE_FIELDS if row["kind"] == Kind.CHANGE else CALL_FIELDS
    exported = {"id": row["id"], "at": row["at"].isoformat(), "kind": row["kind"]}
    exported.update((name, row[name]) for name in fields)
    if exported.get("arguments", "") is None:  # recorded only when asked for
        del exported["arguments"]
    return exported


def event_line(row: dict[str, Any]) -> str:
    return json.dumps(event_object(row), ensure_ascii=False, separators=(",", ":")) + "\n"


def event_lines(events: QuerySet[AuditEvent]) -> Iterator[str]:
    """One JSON line per event, read from the database a chunk at a time."""
    for row in events.values().iterator(chunk_size=CHUNK):
        yield event_line(row)


async def _async_event_lines(events: QuerySet[AuditEvent]) -> AsyncIterator[str]:
    async for row in events.values().aiterator(chunk_size=CHUNK):
        yield event_line(row)


def jsonl_response(request: HttpRequest, events: QuerySet[AuditEvent]) -> StreamingHttpResponse:
    """The events as a JSON lines download, streamed as they are read."""
    # Served over ASGI (daphne), a synchronous iterator would be read whole before sending.
    if isinstance(request, ASGIRequest):
        lines: Iterator[str] | AsyncIterator[str] = _async_event_lines(events)
    else:
        lines = event_lines(events)
    response = StreamingHttpResponse(lines, content_type="application/jsonl; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="audit-{stamp}.jsonl"'
    return response
