"""Session records written off the hot path: at start, every few seconds, and at the end."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import F

from gateway.flush_loop import FlushLoop
from gateway.sessions.last_seen import LastSeen, mark_seen
from gateway.sessions.session import GatewaySession, expiry_check_seconds
from indexing.reports.models import IndexedLabel, SessionRecord

logger = logging.getLogger(__name__)


def abandoned_after_seconds() -> float:
    """How long an open record can go unwritten before no process can still hold its session.

    A live session's record is written within a flush interval of each request, and an idle
    session ends (closing its record) within the idle timeout plus one expiry check.
    """
    timeout = float(settings.MCP_SESSION_IDLE_TIMEOUT)
    return timeout + expiry_check_seconds(timeout) + settings.SESSION_RECORD_FLUSH_SECONDS


def _close_abandoned(cutoff: datetime) -> int:
    """Mark ended the records a killed process left open; their end is their last write."""
    close_old_connections()
    return SessionRecord.objects.filter(ended_at__isnull=True, last_activity_at__lt=cutoff).update(
        ended_at=F("last_activity_at")
    )


def _fields(session: GatewaySession, *, ended: bool) -> dict:
    now = datetime.now(UTC)
    return {
        "client_id": session.identity.id,
        "client_label": session.identity.name,
        "protocol_version": session.protocol_version,
        "client_software": session.client_name[:200],
        "client_software_version": session.client_version[:100],
        "started_at": datetime.fromtimestamp(session.started, UTC),
        "last_activity_at": now,
        "ended_at": now if ended else None,
        "call_count": session.stats.call_count,
        "error_count": session.stats.errors,
        "bytes_from_upstreams": session.stats.bytes_from_upstreams,
        "bytes_to_client": session.stats.bytes_to_client,
        "calls_by_tool": dict(session.stats.calls),
        "searches": session.index.searches,
        "reads": session.index.reads,
        "guardrails": dict(session.stats.guardrails),
        **_catalog_fields(session),
    }


def _catalog_fields(session: GatewaySession) -> dict:
    view = session.current_view
    plan = view.plan if view is not None else None
    if plan is None:
        return {}
    return {
        "catalog_bytes_before": plan.bytes_before,
        "catalog_bytes_after": plan.bytes_after,
        "catalog_phases": list(plan.phases),
        "items_activated": view.activated_count,
    }


def _labels(session: GatewaySession) -> list[dict]:
    return [
        {
            "label": s.label,
            "tool": s.tool,
            "run": s.run,
            "original_bytes": s.original_bytes,
            "delivered_bytes": s.delivered_bytes,
            "lines": s.lines,
            "chunks": s.chunks,
            "seconds_to_index": s.seconds,
        }
        for s in session.indexed_labels()
    ]


def _write(rows: list[tuple[str, dict, list[dict]]], seen: list[int]) -> None:
    close_old_connections()
    mark_seen(seen)
    for key, fields, labels in rows:
        with transaction.atomic():  # a record and its labels are saved together or not at all
            record, _ = SessionRecord.objects.update_or_create(key=key, defaults=fields)
            known = set(record.labels.values_list("label", flat=True))
            IndexedLabel.objects.bulk_create(
                IndexedLabel(session=record, **label)
                for label in labels
                if label["label"] not in known
            )


class SessionRecorder:
    """Collects session changes in memory and writes them in batches from a background task."""

    def __init__(self) -> None:
        self._dirty: dict[str, tuple[GatewaySession, bool]] = {}
        self._loop = FlushLoop(
            "session-recorder", self._flush_and_sweep, lambda: settings.SESSION_RECORD_FLUSH_SECONDS
        )
        self.last_seen = LastSeen()
        self._next_sweep = 0.0  # the first flush also closes records left open by a crash

    def changed(self, session: GatewaySession, *, ended: bool = False) -> None:
        """Note that a session started, progressed or ended; written soon, not now."""
        self._dirty[session.record_id] = (session, ended)
        if ended:
            self._loop.wake()
        self._loop.start()

    async def _flush_and_sweep(self) -> None:
        await self.flush()
        if not self._loop.closing and time.monotonic() >= self._next_sweep:
            await self.close_abandoned()

    async def close_abandoned(self) -> None:
        """Close the records of sessions whose process died (SIGKILL, power loss)."""
        after = abandoned_after_seconds()
        self._next_sweep = time.monotonic() + min(300.0, after / 2)
        cutoff = datetime.now(UTC) - timedelta(seconds=after)
        try:
            closed = await sync_to_async(_close_abandoned, thread_sensitive=False)(cutoff)
        except Exception:
            logger.exception("could not close abandoned session records")
            return
        if closed:
            logger.info("closed %d session record(s) left open by a stopped process", closed)

    async def flush(self) -> None:
        """Write every pending change now."""
        pending, self._dirty = self._dirty, {}
        rows = [(key, _fields(s, ended=ended), _labels(s)) for key, (s, ended) in pending.items()]
        if not rows:
            return
        seen = self.last_seen.due(fields["client_id"] for _key, fields, _labels in rows)
        try:
            await sync_to_async(_write, thread_sensitive=False)(rows, seen)
        except Exception:
            logger.exception("could not write %d session record(s)", len(rows))

    async def aclose(self) -> None:
        """Let the background writer finish, then write what is still pending."""
        await self._loop.aclose()
        await self.flush()
