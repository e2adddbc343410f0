"""Serve the gateway over stdio for one authenticated client."""

from __future__ import annotations

import logging
import sys

from mcp.server.stdio import stdio_server

from gateway.identity import identities
from gateway.runtime import current_client, get_gateway
from gateway.server import current_instructions

logger = logging.getLogger(__name__)


async def serve_stdio(token: str) -> bool:
    """Run until stdin closes; False when the token is not valid."""
    identity = await identities.authenticate(token)
    if identity is None:
        return False
    # stdout carries the protocol: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    gateway = get_gateway()
    current_client.set(identity)
    current_instructions.set(await gateway.instructions_for_identity(identity))
    try:
        async with stdio_server() as (read_stream, write_stream):
            await gateway.server.run(
                read_stream, write_stream, gateway.server.create_initialization_options()
            )
    finally:
        await gateway.aclose()
    return True
