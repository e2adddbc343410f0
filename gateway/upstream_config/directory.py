"""The enabled upstreams as plain specs, read from the database and cached briefly."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.db.models.signals import post_delete, post_save

from gateway.models import Upstream
from gateway.upstream_auth.models import Grant
from gateway.upstream_auth.tokens import grant_mode
from gateway.upstream_config.env_placeholders import expand
from gateway.upstreams import GrantRef, UpstreamSpec

Granted = frozenset[tuple[int, int | None]]
"""(upstream id, member id or None for the team's) of every grant that can be used now."""

logger = logging.getLogger(__name__)


def spec_for(upstream: Upstream, environ: Mapping[str, str] | None = None) -> UpstreamSpec:
    """The connection spec of a stored upstream, its `${VAR}` placeholders filled in from
    `environ` (default: the gateway's environment;
    see `gateway.upstream_config.env_placeholders`)."""
    environ = os.environ if environ is None else environ
    unset: list[str] = []

    def fill(text: str) -> str:
        value, missing = expand(text, environ)
        unset.extend(name for name in missing if name not in unset)
        return value

    return UpstreamSpec(
        name=upstream.name,
        transport=upstream.transport,
        command=fill(upstream.command),
        args=tuple(fill(arg) for arg in upstream.args),
        env={key: fill(value) for key, value in upstream.env.items()},
        cwd=fill(upstream.cwd) or None,
        url=fill(upstream.url),
        headers={key: fill(value) for key, value in upstream.headers.items()},
        timeout=upstream.timeout_seconds,
        unset=tuple(unset),
        max_message_bytes=settings.UPSTREAM_MAX_MESSAGE_BYTES,
        grant=_grant_of(upstream),
    )


def _grant_of(upstream: Upstream) -> GrantRef | None:
    """The grant an HTTP upstream's connections carry (without a member: see `grants.py`)."""
    mode = grant_mode(upstream)
    if mode == "none" or upstream.transport == "stdio":
        return None
    return GrantRef(upstream_id=upstream.pk, mode=mode)


def _load() -> tuple[dict[str, UpstreamSpec], Granted]:
    close_old_connections()
    upstreams = Upstream.objects.filter(enabled=True).select_related("auth")
    specs = {u.name: spec_for(u) for u in upstreams}
    usable = Grant.objects.filter(needs_reauthorization=False, upstream__enabled=True)
    return specs, frozenset(usable.values_list("upstream_id", "member_id"))


class UpstreamDirectory:
    """name -> spec of every enabled upstream, and which grants are usable (`granted`);
    reloaded after a few seconds or a local save.

    Once loaded, an expired copy keeps serving while a fresh one is read in the background,
    so a tool call never waits for the database.
    """

    def __init__(self, seconds: float | None = None) -> None:
        self._seconds = settings.UPSTREAM_LIST_CACHE_SECONDS if seconds is None else seconds
        self._specs: dict[str, UpstreamSpec] | None = None
        self.granted: Granted = frozenset()
        """As of the last load: enough to choose what to list, not to authorize a call."""
        self._expires = 0.0
        self._reload: asyncio.Task | None = None

    async def specs(self) -> dict[str, UpstreamSpec]:
        if self._specs is None:
            await self._load()
        elif time.monotonic() >= self._expires and self._reload is None:
            self._reload = asyncio.create_task(self._load())
            self._reload.add_done_callback(self._reloaded)
        return self._specs

    async def _load(self) -> None:
        self._specs, self.granted = await sync_to_async(_load, thread_sensitive=False)()
        self._expires = time.monotonic() + self._seconds

    def _reloaded(self, task: asyncio.Task) -> None:
        self._reload = None
        if not task.cancelled() and task.exception() is not None:
            logger.error("could not reload the upstreams: %s", task.exception())

    def invalidate(self, *args, **kwargs) -> None:
        self._specs = None


directory = UpstreamDirectory()
post_save.connect(directory.invalidate, sender=Upstream, dispatch_uid="directory-save")
post_delete.connect(directory.invalidate, sender=Upstream, dispatch_uid="directory-delete")
post_save.connect(directory.invalidate, sender=Grant, dispatch_uid="directory-grant-save")
post_delete.connect(directory.invalidate, sender=Grant, dispatch_uid="directory-grant-delete")
