"""Ask the person at a client to connect an upstream, by URL-mode elicitation.

A call to an upstream that needs a grant the client's member has not got fails with a
tool error naming the upstream and the link to connect it. A client that declared URL-mode
elicitation is asked instead: it shows the link (the admin's Connect page), and once the
person accepts, the call waits for the grant to appear (the browser round trip may end
in any worker, so the database is asked again every `GRANT_POLL_SECONDS`) and goes on;
declined, cancelled or not connected within `CONNECT_WAIT_SECONDS`, the call gets the tool
error after all. In the 2026-07-28 era the question is an `input_required` round
(`input_rounds.py`); before it, an `elicitation/create` request on the call's stream.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.sessions.reverse_requests import ask_caller
from gateway.upstream_config.grants import GrantRequired

CONNECT_WAIT_SECONDS = 300.0
"""How long an accepted call waits for the member to finish connecting (as long as a
2026-07-28 call may stay parked)."""
GRANT_POLL_SECONDS = 1.0
ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())


def accepts_url_elicitation(session: Any) -> bool:
    """Whether the client (an SDK server session) declared URL-mode elicitation."""
    capabilities = session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and elicitation.url is not None


async def connect_through_client[T](
    caller: Any, required: GrantRequired, connect: Callable[[], Awaitable[T]]
) -> T:
    """Ask the client of `caller` (an SDK request context or a parked call) to connect the
    upstream, then `connect()` once the grant is there.

    Raises:
        GrantRequired: the client cannot be asked, the person did not accept, or the grant
            did not appear in time.
    """
    if not accepts_url_elicitation(caller.session):
        raise required
    modern = caller.session.protocol_version in MODERN_PROTOCOL_VERSIONS
    params = types.ElicitRequestURLParams(
        message=f"Connect {required.upstream!r} to LocalRouter to use its tools "
        f"({required.reason}).",
        url=required.connect_url,
        # Required up to 2025-11-25, gone at 2026-07-28.
        elicitation_id=None if modern else uuid.uuid4().hex,
    )
    answer = await ask_caller(
        caller, types.ElicitRequest(params=params), types.ElicitResult, ELICITATION, "elicitation"
    )
    if not isinstance(answer, types.ElicitResult) or answer.action != "accept":
        raise required
    with anyio.move_on_after(CONNECT_WAIT_SECONDS):
        while True:
            try:
                return await connect()
            except GrantRequired:
                await anyio.sleep(GRANT_POLL_SECONDS)
    raise required
