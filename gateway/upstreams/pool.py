"""`UpstreamPool`: the worker process's connections, one per upstream name."""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio

from gateway.upstreams.connection import UpstreamConnection
from gateway.upstreams.hooks import UpstreamHooks
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger(__name__)

ConnectionFactory = Callable[[UpstreamSpec, UpstreamHooks], UpstreamConnection]


class UpstreamPool:
    """Holds one `UpstreamConnection` per upstream; each fails and restarts on its own."""

    def __init__(
        self,
        hooks: UpstreamHooks | None = None,
        connection_factory: ConnectionFactory = UpstreamConnection,
    ) -> None:
        self.hooks = hooks or UpstreamHooks()
        self._factory = connection_factory
        self._connections: dict[str, UpstreamConnection] = {}
        self._lock = anyio.Lock()

    def __contains__(self, name: object) -> bool:
        return name in self._connections

    def __len__(self) -> int:
        return len(self._connections)

    def names(self) -> list[str]:
        """Names of the upstreams with a connection, sorted."""
        return sorted(self._connections)

    async def get(self, spec: UpstreamSpec) -> UpstreamConnection:
        """The connection for `spec.name`; a changed spec replaces (and closes) the old one."""
        current = self._connections.get(spec.name)
        if current is not None and current.spec == spec:
            return current
        async with self._lock:
            current = self._connections.get(spec.name)
            if current is not None and current.spec == spec:
                return current
            connection = self._factory(spec, self.hooks)
            self._connections[spec.name] = connection
        if current is not None:
            logger.info("upstream %r changed; replacing its connection", spec.name)
            await current.aclose()
        return connection

    async def discard(self, name: str) -> None:
        """Close and forget the connection for `name`, if any."""
        async with self._lock:
            connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.aclose()

    async def retain(self, names: set[str]) -> None:
        """Close the connections of every upstream not in `names` (e.g. deleted upstreams)."""
        for name in [n for n in self._connections if n not in names]:
            await self.discard(name)

    async def aclose(self) -> None:
        """Close every connection, concurrently; one slow upstream does not delay the others."""
        async with self._lock:
            connections = list(self._connections.values())
            self._connections.clear()
        async with anyio.create_task_group() as tg:
            for connection in connections:
                tg.start_soon(connection.aclose)
