"""The enabled upstreams as plain specs, read from the database and cached briefly."""

from __future__ import annotations

import asyncio
import logging
import time

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.db.models.signals import post_delete, post_save

from gateway.models import Upstream
from gateway.upstreams import UpstreamSpec

logger = logging.getLogger(__name__)
CACHE_SECONDS = 5.0


def spec_for(upstream: Upstream) -> UpstreamSpec:
    """The connection spec of a stored upstream."""
    return UpstreamSpec(
        name=upstream.name,
        transport=upstream.transport,
        command=upstream.command,
        args=tuple(upstream.args),
        env=dict(upstream.env),
        cwd=upstream.cwd or None,
        url=upstream.url,
        headers=dict(upstream.headers),
        timeout=upstream.timeout_seconds,
    )


def _load() -> dict[str, UpstreamSpec]:
    close_old_connections()
    return {u.name: spec_for(u) for u in Upstream.objects.filter(enabled=True)}


class UpstreamDirectory:
    """name -> spec of every enabled upstream; reloaded after a few seconds or a local save.

    Once loaded, an expired copy keeps serving while a fresh one is read in the background,
    so a tool call never waits for the database.
    """

    def __init__(self, seconds: float = CACHE_SECONDS) -> None:
        self._seconds = seconds
        self._specs: dict[str, UpstreamSpec] | None = None
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
        self._specs = await sync_to_async(_load, thread_sensitive=False)()
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
