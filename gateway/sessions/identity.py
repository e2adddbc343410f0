"""Who is calling /mcp: bearer token -> a snapshot of the client, cached briefly.

The snapshot holds everything a session needs (allowed upstreams, tool patterns,
effective context settings) so no ORM call sits on the hot path of a tool call.
Cache entries live a few seconds and are dropped at once when a client or the
global settings are saved in this process. Unknown tokens are remembered for a shorter
time, in a bounded table, so a client retrying a bad token does not reach the database
on every request.
"""

from __future__ import annotations

import asyncio
import fnmatch
import time
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.db.models.signals import m2m_changed, post_delete, post_save

from clients.context_settings import EffectiveSettings, resolve_settings
from clients.models import Client, GlobalSettings
from clients.services import client_for_token
from clients.tokens import hash_token
from indexing.reports.tool_usage import client_tool_usage

CACHE_SECONDS = 5.0
REFUSED_SECONDS = 2.0
REFUSED_LIMIT = 1024  # distinct unknown tokens remembered at once


@dataclass(frozen=True)
class ClientIdentity:
    """An authenticated client as the gateway sees it for one request or session."""

    id: int
    name: str
    allowed_upstreams: frozenset[str] | None  # None: every upstream
    allow_patterns: tuple[str, ...]
    deny_patterns: tuple[str, ...]
    settings: EffectiveSettings
    tool_usage: tuple[tuple[str, float], ...] = ()
    """The tools this client used recently, most used first, with their scores."""
    owner_id: int | None = None
    """The team member the client belongs to (whose upstream grants it uses); None: a team
    client."""

    @property
    def key(self) -> tuple:
        """Everything that shapes this client's catalog, as a hashable value."""
        settings = tuple((name, value.value) for name, value in self.settings.items())
        upstreams = (
            None if self.allowed_upstreams is None else tuple(sorted(self.allowed_upstreams))
        )
        used = tuple(name for name, _score in self.tool_usage)
        return (self.id, upstreams, self.allow_patterns, self.deny_patterns, settings, used)

    def may_use_upstream(self, name: str) -> bool:
        return self.allowed_upstreams is None or name in self.allowed_upstreams

    def may_use_tool(self, exposed_name: str) -> bool:
        """Allow/deny patterns match the exposed '<upstream>__<tool>' name."""
        if self.allow_patterns and not any(
            fnmatch.fnmatchcase(exposed_name, p) for p in self.allow_patterns
        ):
            return False
        return not any(fnmatch.fnmatchcase(exposed_name, p) for p in self.deny_patterns)


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def identity_for_token(token: str) -> ClientIdentity | None:
    """Look the token up in the database and snapshot its client (synchronous)."""
    close_old_connections()
    client = client_for_token(token)
    return identity_for_client(client) if client is not None else None


def identity_for_client(client: Client) -> ClientIdentity:
    """Snapshot a client: its upstreams, tool patterns, settings and tool usage (synchronous)."""
    allowed = None
    if not client.all_upstreams:
        allowed = frozenset(client.upstreams.values_list("name", flat=True))
    return ClientIdentity(
        id=client.pk,
        name=client.name,
        allowed_upstreams=allowed,
        allow_patterns=_lines(client.tool_allow_patterns),
        deny_patterns=_lines(client.tool_deny_patterns),
        settings=resolve_settings(client, GlobalSettings.load()),
        tool_usage=tuple(client_tool_usage(client.pk).items()),
        owner_id=client.owner_id,
    )


class IdentityCache:
    """token hash -> (identity or None, expiry); refusals expire sooner and are bounded."""

    def __init__(
        self,
        seconds: float = CACHE_SECONDS,
        refused_seconds: float = REFUSED_SECONDS,
        refused_limit: int = REFUSED_LIMIT,
    ) -> None:
        self._seconds = seconds
        self._refused_seconds = refused_seconds
        self._refused_limit = refused_limit
        self._entries: dict[str, tuple[ClientIdentity, float]] = {}
        self._refused: dict[str, float] = {}  # insertion order: oldest first
        self._looking_up: dict[str, asyncio.Future] = {}  # one database lookup per token

    async def authenticate(self, token: str) -> ClientIdentity | None:
        key = hash_token(token)
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and entry[1] > now:
            return entry[0]
        if self._refused.get(key, 0.0) > now:
            return None
        # Concurrent requests of one client (all of them, when its entry expires under load)
        # share one lookup; shielded, so a waiter that is cancelled does not end it for all.
        lookup = self._looking_up.get(key)
        if lookup is None:
            lookup = asyncio.ensure_future(self._look_up(key, token))
            self._looking_up[key] = lookup
            lookup.add_done_callback(lambda done: self._lookup_done(key, done))
        return await asyncio.shield(lookup)

    def _lookup_done(self, key: str, lookup: asyncio.Future) -> None:
        if self._looking_up.get(key) is lookup:
            del self._looking_up[key]

    async def _look_up(self, key: str, token: str) -> ClientIdentity | None:
        identity = await sync_to_async(identity_for_token, thread_sensitive=False)(token)
        now = time.monotonic()
        if identity is None:
            self._entries.pop(key, None)
            self._remember_refusal(key, now)
            return None
        self._refused.pop(key, None)
        self._entries[key] = (identity, now + self._seconds)
        return identity

    def _remember_refusal(self, key: str, now: float) -> None:
        self._refused.pop(key, None)
        while len(self._refused) >= self._refused_limit:
            del self._refused[next(iter(self._refused))]
        self._refused[key] = now + self._refused_seconds

    def clear(self, *args, **kwargs) -> None:
        self._entries.clear()
        self._refused.clear()
        self._looking_up.clear()  # requests from now on look the saved state up afresh


identities = IdentityCache()

for _signal in (post_save, post_delete):
    _signal.connect(identities.clear, sender=Client, dispatch_uid=f"identities-{_signal}-client")
    _signal.connect(identities.clear, sender=GlobalSettings, dispatch_uid=f"identities-{_signal}-g")
m2m_changed.connect(
    identities.clear, sender=Client.upstreams.through, dispatch_uid="identities-m2m"
)


def bearer_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of an 'Authorization: Bearer …' header, if any."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None
