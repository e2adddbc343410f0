"""What the admin shows of this worker's gateway now: its open sessions (the live sessions
page), and the live state the session reports read (`GatewayLiveState`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from gateway.runtime import running_gateway
from gateway.upstream_config.status import UpstreamHealth, upstream_health, upstream_names
from indexing.api.session_store import SessionStore


@dataclass(frozen=True)
class LiveSessionRow:
    """One open session as the admin shows it."""

    key: str
    client: str
    software: str
    protocol: str
    started: datetime
    calls: int
    errors: int
    bytes_saved: int
    in_flight: dict[str, int]


def live_sessions() -> list[LiveSessionRow]:
    """This worker's open sessions, newest first (empty when no client connected yet)."""
    gateway = running_gateway()
    if gateway is None:
        return []
    rows = []
    for session in gateway.sessions.live():
        if session.closed:
            continue
        stats = session.stats
        rows.append(
            LiveSessionRow(
                key=session.key[:8],
                client=session.identity.name,
                software=" ".join(filter(None, [session.client_name, session.client_version])),
                protocol=session.protocol_version,
                started=datetime.fromtimestamp(session.started, UTC),
                calls=stats.call_count,
                errors=stats.errors,
                bytes_saved=max(0, stats.bytes_from_upstreams - stats.bytes_to_client),
                in_flight={name: n for name, n in sorted(session.in_flight.items()) if n > 0},
            )
        )
    return sorted(rows, key=lambda row: row.started, reverse=True)


def worker_label() -> str:
    """Which worker process answers (each daphne worker has its own sessions)."""
    return f"pid {os.getpid()}"


class GatewayLiveState:
    """The reports' `indexing.reports.live_state.LiveState`, read from this worker's gateway
    (none before the first /mcp request: then no store is live)."""

    def live_store(self, record_key: str) -> SessionStore | None:
        gateway = running_gateway()
        session = gateway.sessions.by_record(record_key) if gateway is not None else None
        return session.index.store if session is not None else None

    def upstream_names(self) -> Sequence[str]:
        return upstream_names()

    def upstream_health(self) -> Sequence[UpstreamHealth]:
        return upstream_health()
