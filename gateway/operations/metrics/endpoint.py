"""GET /metrics: the Prometheus text format, for the bearer of LOCALROUTER_METRICS_TOKEN only.

Behind a reverse proxy every request looks local, so the address proves nothing: without the
setting there is no /metrics at all (404), and with it a request without that exact token
gets 401 and nothing else. With several workers (`multiprocess`), any one answers for all.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable

from django.conf import settings
from django.db import DatabaseError
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from gateway.http.errors import host_allowed
from gateway.models import Upstream
from gateway.operations.metrics import families, multiprocess
from gateway.sessions.identity import bearer_token
from gateway.upstream_config.status import upstream_status

logger = logging.getLogger(__name__)
Send = Callable[[dict], Awaitable[None]]
CHALLENGE = b'Bearer realm="localrouter metrics"'


async def metrics_application(scope: dict, receive: Callable, send: Send) -> None:
    """The /metrics ASGI application."""
    token = settings.METRICS_TOKEN
    if not token:
        await _answer(send, 404, b"Not Found\n")
        return
    headers = {name.lower(): value for name, value in scope["headers"]}
    if not host_allowed(headers.get(b"host", b"").decode("latin-1"), settings.ALLOWED_HOSTS):
        await _answer(send, 421, b"Host not allowed\n")
        return
    if not _bearer_of(scope, token):
        await _answer(send, 401, b"Unauthorized\n", [(b"www-authenticate", CHALLENGE)])
        return
    if scope["method"] not in ("GET", "HEAD"):
        await _answer(send, 405, b"Method Not Allowed\n", [(b"allow", b"GET, HEAD")])
        return
    states = await _upstream_states()
    if states is not None:
        families.show_upstream_states(states)
    body = await asyncio.to_thread(render)
    await _answer(
        send, 200, b"" if scope["method"] == "HEAD" else body, content_type=CONTENT_TYPE_LATEST
    )


def render() -> bytes:
    """Every metric in the text format: this host's workers summed, or this process's own."""
    folder = multiprocess.active_folder()
    if folder is None:
        return generate_latest(REGISTRY)
    multiprocess.forget_dead(folder)  # a worker killed since: its live gauges drop out
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    return generate_latest(registry)


def _bearer_of(scope: dict, token: str) -> bool:
    presented = bearer_token(scope["headers"])
    return presented is not None and hmac.compare_digest(
        presented.encode("latin-1"), token.encode()
    )


async def _upstream_states() -> dict[str, str] | None:
    """Each configured upstream's state in this worker, as its admin page shows it (None:
    the database did not answer; the states stay as they were)."""
    try:
        rows = [row async for row in Upstream.objects.values_list("name", "enabled")]
    except DatabaseError:
        logger.exception("could not read the upstreams for /metrics")
        return None
    return {
        name: upstream_status(name).state.replace(" ", "_") if enabled else "disabled"
        for name, enabled in rows
    }


async def _answer(
    send: Send,
    status: int,
    body: bytes,
    extra_headers: list[tuple[bytes, bytes]] = (),
    *,
    content_type: str = "text/plain; charset=utf-8",
) -> None:
    headers = [(b"content-type", content_type.encode()), *extra_headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
