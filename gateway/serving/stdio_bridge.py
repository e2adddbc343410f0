"""Serve the gateway over stdio for one authenticated client.

The bridge stops every upstream process it started before it exits, whether its input ends
or it is told to stop (SIGTERM, SIGINT, SIGHUP). The upstreams run in process groups of
their own, so a signal to the bridge's group never reaches them: without this, an upstream
still starting (or one that ignores the end of its input) outlived the bridge. Stdio
clients stop a server the way the MCP specification says: close its input, wait, then
SIGTERM (the SDK's client after 2 s, SIGKILL 2 s later); closing an upstream that ignores
its input takes about as long, so the SIGTERM usually comes while the bridge is closing.
It then finishes closing and ends by that signal; a second signal ends it at once.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import anyio
from mcp.server.stdio import stdio_server

from gateway.runtime import current_client, get_gateway
from gateway.sessions.identity import TokenRefusal, identities
from gateway.sessions.server import current_instructions

logger = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@dataclass
class StopSignal:
    """The first stop signal received, if any: it cancels `serving`."""

    serving: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    number: int | None = None

    async def watch(self, signals: AsyncIterator[int]) -> None:
        """Note the first signal and cancel the serving; a later one gets the default
        action (the process ends at once)."""
        async for number in signals:
            self.number = number
            for each in STOP_SIGNALS:
                signal.signal(each, signal.SIG_DFL)
            self.serving.cancel()
            return

    def end_process_if_received(self) -> None:
        """End the process by the signal received, as it would have ended without us.

        Not a return: serving may still wait on a read of stdin, which only the client's
        closing of it ends, and the interpreter would wait for that thread at exit.
        """
        if self.number is not None:
            os.kill(os.getpid(), self.number)


async def serve_stdio(token: str) -> bool:
    """Run until stdin closes or a stop signal comes, then stop every upstream; False when
    the token is not valid."""
    identity = await identities.authenticate(token, resource="")  # lr_ tokens only here
    if isinstance(identity, TokenRefusal):
        return False
    # stdout carries the protocol: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    gateway = get_gateway()
    current_client.set(identity)
    stop = StopSignal()
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
            tg.start_soon(stop.watch, signals)
            try:
                with stop.serving:
                    # The instructions start the upstreams (within the start budget).
                    instructions = await gateway.instructions_for_identity(identity)
                    current_instructions.set(instructions)
                    await gateway.server.run(
                        read_stream,
                        write_stream,
                        gateway.server.create_initialization_options(),
                    )
            finally:
                # Every upstream, those still starting included, is stopped before we exit.
                with anyio.CancelScope(shield=True):
                    await gateway.aclose()
                stop.end_process_if_received()
            tg.cancel_scope.cancel()
    return True
