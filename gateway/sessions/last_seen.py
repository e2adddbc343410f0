"""`Client.last_seen_at`, written with the session records: at most once a minute per client."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime

from clients.models import Client

WRITE_EVERY = 60.0


class LastSeen:
    """Which clients are due a `last_seen_at` write (the recorder writes in its own thread)."""

    def __init__(self, every: float = WRITE_EVERY) -> None:
        self.every = every
        self._written: dict[int, float] = {}

    def due(self, client_ids: Iterable[int | None]) -> list[int]:
        """The clients among these not written within the last minute; noted as written."""
        now = time.monotonic()
        due = [
            cid
            for cid in set(client_ids)
            if cid is not None and now - self._written.get(cid, -self.every) >= self.every
        ]
        for cid in due:
            self._written[cid] = now
        return sorted(due)


def mark_seen(client_ids: list[int]) -> None:
    """Set `last_seen_at` to now for these clients (synchronous ORM: call from a thread)."""
    if client_ids:
        Client.objects.filter(pk__in=client_ids).update(last_seen_at=datetime.now(UTC))
