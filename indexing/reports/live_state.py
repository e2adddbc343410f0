"""What the session reports show of this worker's running gateway, filled in by the gateway.

The reports are a layer below the gateway and never import it. Instead the gateway
registers each live session's index store under the session's record key (and removes it
when the session ends), and at startup hands over how to list upstreams and their health.
Until then there are no live stores, no upstream names and no health rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from indexing.engine.store import SessionStore

StoreLookup = Callable[[], SessionStore]

_stores: dict[str, StoreLookup] = {}
_upstream_names: Callable[[], Sequence[str]] = tuple
_upstream_health: Callable[[], Sequence[Any]] = tuple


def register_store(record_key: str, lookup: StoreLookup) -> None:
    """A session started: its store (looked up when read, since it is made lazily)."""
    _stores[record_key] = lookup


def unregister_store(record_key: str) -> None:
    """The session ended: its store is gone."""
    _stores.pop(record_key, None)


def live_store(record_key: str) -> SessionStore | None:
    """The index store of the live session behind a record, or None once it ended."""
    lookup = _stores.get(record_key)
    return lookup() if lookup is not None else None


def provide_upstreams(
    names: Callable[[], Sequence[str]], health: Callable[[], Sequence[Any]]
) -> None:
    """How to list the configured upstreams' names, and their health rows (each with
    name, enabled, state, error, tools and last_stderr), for filters and the overview."""
    global _upstream_names, _upstream_health
    _upstream_names, _upstream_health = names, health


def upstream_names() -> list[str]:
    return list(_upstream_names())


def upstream_health() -> list[Any]:
    return list(_upstream_health())
