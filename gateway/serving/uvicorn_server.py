"""uvicorn (httptools, uvloop) as LocalRouter's HTTP server, with daphne's shutdown behaviour.

uvicorn stops listening as soon as it is told to stop; LocalRouter's contract is different
(SIGTERM: requests already running get `LOCALROUTER_SHUTDOWN_GRACE_SECONDS` to finish, new
/mcp requests get 503 + Retry-After meanwhile). So the first SIGTERM or SIGINT closes the
gateway first, with the server still listening, and only then lets uvicorn stop. A second
signal stops at once. No lifespan events are sent: the gateway starts lazily on the first
/mcp request, as it does under daphne.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from types import FrameType

import uvicorn

from gateway.runtime import running_gateway
from gateway.serving import APPLICATION
from gateway.serving.process_tuning import tune_for_serving

logger = logging.getLogger(__name__)

# Tasks of connections still open after the gateway closed (a client that keeps a stream).
CONNECTIONS_GRACE_SECONDS = 5
# An idle kept-alive connection stays open this long (uvicorn's 5 s would close connections
# of MCP clients between calls, racing their next request; daphne does not close them).
KEEP_ALIVE_SECONDS = 75


class DrainingServer(uvicorn.Server):
    """A uvicorn server that lets the gateway drain before it stops listening."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._draining: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def serve(self, sockets=None) -> None:  # noqa: ANN001 - uvicorn's signature
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._draining is not None or self._loop is None or running_gateway() is None:
            super().handle_exit(sig, frame)
            return
        # A Python signal handler runs between two bytecodes of the loop's own thread: hand
        # the work to the loop the safe way.
        self._loop.call_soon_threadsafe(self._drain_then_exit)

    def _drain_then_exit(self) -> None:
        if self._draining is None:
            self._draining = asyncio.create_task(self._drain(), name="gateway-drain")

    async def _drain(self) -> None:
        gateway = running_gateway()
        try:
            if gateway is not None:
                await gateway.aclose()
        except Exception:
            logger.exception("closing the gateway failed")
        finally:
            self.should_exit = True


def config(host: str, port: int) -> uvicorn.Config:
    """uvicorn settings for LocalRouter: the fastest installed HTTP parser and event loop,
    no lifespan, Django's logging kept (which writes uvicorn's access line with its request
    target masked: `settings.LOGGING`); the client's address left as it connected
    (localrouter/client_address.py reads proxies')."""
    return uvicorn.Config(
        APPLICATION,
        host=host,
        port=port,
        http="httptools" if importlib.util.find_spec("httptools") else "h11",
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        lifespan="off",
        access_log=True,
        log_config=None,
        timeout_graceful_shutdown=CONNECTIONS_GRACE_SECONDS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        proxy_headers=False,
    )


def serve(host: str, port: int) -> None:
    """Serve LocalRouter with uvicorn until SIGTERM/SIGINT (blocks)."""
    tune_for_serving()
    DrainingServer(config(host, port)).run()
