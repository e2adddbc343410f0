"""Who is calling /mcp: bearer token -> a snapshot of the client, cached briefly.

The snapshot holds everything a session needs (allowed upstreams, tool policy,
effective context settings) so no ORM call sits on the hot path of a tool call.
Cache entries live a few seconds and are dropped at once when a client or the
global settings are saved in this process. Unknown tokens are remembered for a shorter
time, in a bounded table, so a client retrying a bad token does not reach the database
on every request. An OAuth access token (any token without the `lr_` prefix) is checked
for this resource, expiry and scope (clients/oauth/access.py) and kept a second at most,
so a revocation on any worker ends access everywhere within that second.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.db.models.signals import m2m_changed, post_delete, post_save

from clients.context_settings import EffectiveSettings, resolve_settings
from clients.models import Client, GlobalSettings
from clients.oauth.access import oauth_access
from clients.services import client_for_token
from clients.tokens import TOKEN_PREFIX, hash_token
from clients.tool_policy import ToolPolicy
from indexing.reports.tool_usage import client_tool_usage

CACHE_SECONDS = 5.0
OAUTH_CACHE_SECONDS = 1.0  # how late a revoked OAuth token may still be honoured
REFUSED_SECONDS = 2.0
REFUSED_LIMIT = 1024  # distinct unknown tokens remembered at once


@dataclass(frozen=True)
class ClientIdentity:
    """An authenticated client as the gateway sees it for one request or session."""

    id: int
    name: str
    allowed_upstreams: frozenset[str] | None  # None: every upstream
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
        return (self.id, upstreams, settings, used)

    def may_use_upstream(self, name: str) -> bool:
        return self.allowed_upstreams is None or name in self.allowed_upstreams

    @property
    def policy(self) -> ToolPolicy:
        """The client's tool policy (its rules, then the global ones)."""
        return ToolPolicy.from_text(self.settings.tool_policy)

    def may_use_tool(self, exposed_name: str) -> bool:
        """Whether the policy lists the exposed '<upstream>__<tool>' name (not denied)."""
        return self.policy.lists(exposed_name)


@dataclass(frozen=True)
class TokenRefusal:
    """Why a token was refused, as RFC 6750 names it."""

    error: str  # invalid_token or insufficient_scope
    description: str


INVALID = TokenRefusal("invalid_token", "invalid or revoked token")


def identity_for_token(token: str, resource: str) -> tuple[ClientIdentity | TokenRefusal, float]:
    """Look the token up in the database and snapshot its client, with the most seconds an
    identity may be kept (synchronous). `resource` is the /mcp address the request came to."""
    close_old_connections()
    if token.startswith(TOKEN_PREFIX):
        client = client_for_token(token)
        return (INVALID, 0.0) if client is None else (identity_for_client(client), math.inf)
    access = oauth_access(token, resource)
    if access.client is None:
        return TokenRefusal(access.error, access.description), 0.0
    left = (access.expires - datetime.now(UTC)).total_seconds()
    return identity_for_client(access.client), max(0.0, min(OAUTH_CACHE_SECONDS, left))


def identity_for_client(client: Client) -> ClientIdentity:
    """Snapshot a client: its upstreams, settings (tool policy too) and tool usage (synchronous)."""
    allowed = None
    if not client.all_upstreams:
        allowed = frozenset(client.upstreams.values_list("name", flat=True))
    return ClientIdentity(
        id=client.pk,
        name=client.name,
        allowed_upstreams=allowed,
        settings=resolve_settings(client, GlobalSettings.load()),
        tool_usage=tuple(client_tool_usage(client.pk).items()),
        owner_id=client.owner_id,
    )


class IdentityCache:
    """(token hash, resource) -> (identity or refusal, expiry); refusals are bounded."""

    def __init__(
        self,
        seconds: float = CACHE_SECONDS,
        refused_seconds: float = REFUSED_SECONDS,
        refused_limit: int = REFUSED_LIMIT,
    ) -> None:
        self._seconds = seconds
        self._refused_seconds = refused_seconds
        self._refused_limit = refused_limit
        self._entries: dict[tuple[str, str], tuple[ClientIdentity, float]] = {}
        self._refused: dict[tuple[str, str], tuple[TokenRefusal, float]] = {}  # oldest first
        self._looking_up: dict[tuple[str, str], asyncio.Future] = {}  # one lookup per token

    async def authenticate(self, token: str, resource: str) -> ClientIdentity | TokenRefusal:
        """The token's client, or why it is refused, for a request to `resource`."""
        key = (hash_token(token), resource)
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and entry[1] > now:
            return entry[0]
        refused = self._refused.get(key)
        if refused is not None and refused[1] > now:
            return refused[0]
        # Concurrent requests of one client (all of them, when its entry expires under load)
        # share one lookup; shielded, so a waiter that is cancelled does not end it for all.
        lookup = self._looking_up.get(key)
        if lookup is None:
            lookup = asyncio.ensure_future(self._look_up(key, token, resource))
            self._looking_up[key] = lookup
            lookup.add_done_callback(lambda done: self._lookup_done(key, done))
        return await asyncio.shield(lookup)

    def _lookup_done(self, key: tuple[str, str], lookup: asyncio.Future) -> None:
        if self._looking_up.get(key) is lookup:
            del self._looking_up[key]

    async def _look_up(
        self, key: tuple[str, str], token: str, resource: str
    ) -> ClientIdentity | TokenRefusal:
        found, keep = await sync_to_async(identity_for_token, thread_sensitive=False)(
            token, resource
        )
        now = time.monotonic()
        if isinstance(found, TokenRefusal):
            self._entries.pop(key, None)
            self._remember_refusal(key, found, now + self._refused_seconds)
            return found
        self._refused.pop(key, None)
        self._entries[key] = (found, now + min(self._seconds, keep))
        return found

    def _remember_refusal(self, key: tuple[str, str], refusal: TokenRefusal, until: float) -> None:
        self._refused.pop(key, None)
        while len(self._refused) >= self._refused_limit:
            del self._refused[next(iter(self._refused))]
        self._refused[key] = (refusal, until)

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
