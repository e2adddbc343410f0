"""`UpstreamPool`: the worker process's connections, one per upstream and grant holder."""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio

from gateway.upstreams.bearer import BearerSource
from gateway.upstreams.connection import UpstreamConnection
from gateway.upstreams.hooks import UpstreamHooks
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger(__name__)

ConnectionFactory = Callable[..., UpstreamConnection]
BearerFactory = Callable[[UpstreamSpec], BearerSource | None]
"""Builds the token source of a spec that carries a grant (`UpstreamSpec.grant`)."""


class UpstreamPool:
    """Holds one `UpstreamConnection` per upstream, and for an upstream with per-member
    grants one per member (`UpstreamSpec.key`); each fails and restarts on its own.

    A connection carries exactly one grant, built by `bearer_for` from its spec: a
    member's connection is never handed to a spec naming another member."""

    def __init__(
        self,
        hooks: UpstreamHooks | None = None,
        connection_factory: ConnectionFactory = UpstreamConnection,
        bearer_for: BearerFactory | None = None,
    ) -> None:
        self.hooks = hooks or UpstreamHooks()
        self._factory = connection_factory
        self._bearer_for = bearer_for
        self._connections: dict[tuple[str, int | None], UpstreamConnection] = {}
        self._lock = anyio.Lock()

    def __contains__(self, name: object) -> bool:
        return any(key[0] == name for key in self._connections)

    def __len__(self) -> int:
        return len(self._connections)

    def names(self) -> list[str]:
        """Names of the upstreams with a connection, sorted."""
        return sorted({name for name, _holder in self._connections})

    async def get(self, spec: UpstreamSpec) -> UpstreamConnection:
        """The connection for `spec.key`; a changed spec replaces (and closes) the old one."""
        key = spec.key
        current = self._connections.get(key)
        if current is not None and current.spec == spec:
            return current
        async with self._lock:
            current = self._connections.get(key)
            if current is not None and current.spec == spec:
                return current
            connection = self._connect(spec)
            self._connections[key] = connection
        if current is not None:
            logger.info("upstream %r changed; replacing its connection", spec.name)
            await current.aclose()
        return connection

    def _connect(self, spec: UpstreamSpec) -> UpstreamConnection:
        if spec.grant is None:
            return self._factory(spec, self.hooks)
        if self._bearer_for is None:
            raise ValueError(f"upstream {spec.name!r} carries a grant: the pool needs bearer_for")
        holder = spec.grant.holder
        hooks = self.hooks if holder is None else self.hooks.for_member(holder)
        return self._factory(spec, hooks, bearer=self._bearer_for(spec))

    async def discard(self, name: str) -> None:
        """Close and forget the connections for `name` (every member's), if any."""
        async with self._lock:
            keys = [key for key in self._connections if key[0] == name]
            connections = [self._connections.pop(key) for key in keys]
        for connection in connections:
            await connection.aclose()

    async def retain(self, names: set[str]) -> None:
        """Close the connections of every upstream not in `names` (e.g. deleted upstreams)."""
        for name in [n for n in self.names() if n not in names]:
            await self.discard(name)

    async def aclose(self) -> None:
        """Close every connection, concurrently; one slow upstream does not delay the others."""
        async with self._lock:
            connections = list(self._connections.values())
            self._connections.clear()
        async with anyio.create_task_group() as tg:
            for connection in connections:
                tg.start_soon(connection.aclose)
