"""Two gateway workers in one process, sharing Redis as separate daphne workers do.

Each worker is a `Gateway` of its own (host, sessions, forwarding inbox) with the real
ASGI application in front of it; a test picks the worker a request reaches, as a load
balancer would, by sending it to that worker's `app`.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from gateway.runtime import Gateway
from localrouter.asgi import application

# The worker serving the current exchange; `gateway.http.exchange.get_gateway` reads it.
receiving: ContextVar[Gateway] = ContextVar("receiving")


@dataclass
class Worker:
    gateway: Gateway = field(default_factory=Gateway)

    async def app(self, scope: dict, receive: Any, send: Any) -> None:
        """The ASGI application, with this worker's gateway serving what it receives."""
        receiving.set(self.gateway)
        await application(scope, receive, send)
