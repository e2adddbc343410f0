"""Access tokens this worker read lately, so that most calls to an OAuth upstream read no
database: kept at most LOCALROUTER_GRANT_TOKEN_CACHE_SECONDS, and never past the moment the
token is due for refresh.
A 401 from the upstream drops the entry (`tokens.token_rejected`), as do Connect and
Disconnect in this worker; another worker's Disconnect is seen within that time (and the
upstream refuses a revoked token at once)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings

Key = tuple[int, int | None]
"""(upstream id, member id as the caller gave it)"""


@dataclass(frozen=True)
class _Entry:
    token: str
    use_until: float
    """time.monotonic() after which the entry is not used."""


_entries: dict[Key, _Entry] = {}


def cached(upstream_id: int, member_id: int | None) -> str | None:
    entry = _entries.get((upstream_id, member_id))
    if entry is None or time.monotonic() >= entry.use_until:
        return None
    return entry.token


def remember(upstream_id: int, member_id: int | None, token: str, seconds: float) -> None:
    """Keep `token` for `seconds` (at most LOCALROUTER_GRANT_TOKEN_CACHE_SECONDS)."""
    lifetime = min(seconds, settings.GRANT_TOKEN_CACHE_SECONDS)
    if lifetime > 0:
        _entries[(upstream_id, member_id)] = _Entry(token, time.monotonic() + lifetime)


def forget(upstream_id: int, member_id: int | None) -> None:
    _entries.pop((upstream_id, member_id), None)


def forget_upstream(upstream_id: int) -> None:
    """Drop every entry of one upstream (its grants changed in this worker)."""
    for key in [key for key in _entries if key[0] == upstream_id]:
        del _entries[key]


def forget_all() -> None:
    _entries.clear()
