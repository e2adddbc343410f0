"""Handshake-era session ids that name the worker holding the session.

With LOCALROUTER_WORKER_ROUTE set (say `w1`), every session a worker opens is named
`w1.<32 hex digits>`, so that a stock reverse proxy sends each later request of the session
to that worker by the prefix of its `Mcp-Session-Id` (docs/deploy.md has nginx's and
HAProxy's configuration). Unset, a session id is 32 hex digits, as the SDK makes them. The
id stays unguessable either way: the prefix only adds a name to the random part.
"""

from __future__ import annotations

import uuid

SEPARATOR = "."


def routed_session_id(route: str) -> str:
    """A new session id for the worker named `route`."""
    return f"{route}{SEPARATOR}{uuid.uuid4().hex}"
