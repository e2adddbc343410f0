"""Connections from the gateway to upstream MCP servers (plain Python, no Django).

`UpstreamPool.get(spec)` hands out one `UpstreamConnection` per upstream (and per member
for an upstream with per-member OAuth grants, whose token a `BearerSource` gives); its methods
raise `UpstreamError` on every failure. `UpstreamHooks` carries the gateway's callbacks.
"""

from gateway.upstreams.backoff import Backoff
from gateway.upstreams.bearer import BearerSource, BearerUnavailable
from gateway.upstreams.connection import UpstreamConnection
from gateway.upstreams.errors import ErrorKind, UpstreamError
from gateway.upstreams.hooks import ListKind, UpstreamHooks
from gateway.upstreams.pool import UpstreamPool
from gateway.upstreams.spec import GrantRef, UpstreamSpec, split_caller_route
from gateway.upstreams.stderr import stderr_mark, stderr_tail

__all__ = [
    "Backoff",
    "BearerSource",
    "BearerUnavailable",
    "ErrorKind",
    "GrantRef",
    "ListKind",
    "UpstreamConnection",
    "UpstreamError",
    "UpstreamHooks",
    "UpstreamPool",
    "UpstreamSpec",
    "split_caller_route",
    "stderr_mark",
    "stderr_tail",
]
