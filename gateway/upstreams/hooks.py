"""Callbacks the gateway registers to hear from upstreams (notifications and server requests)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Literal

import mcp_types as types

from gateway.upstreams.spec import caller_route

ListKind = Literal["tools", "resources", "prompts"]

ListChangedHook = Callable[[str, ListKind], Awaitable[None]]
"""`(upstream, kind)`: the upstream's tools/resources/prompts list changed."""

ResourceUpdatedHook = Callable[[str, str], Awaitable[None]]
"""`(upstream, uri)`: a subscribed resource changed."""

LogHook = Callable[[str, types.LoggingMessageNotificationParams], Awaitable[None]]
"""`(upstream, params)`: the upstream sent a logging message."""

SamplingHook = Callable[
    [str, types.CreateMessageRequestParams],
    Awaitable[types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData],
]
"""`(upstream, params)`: the upstream asks for an LLM completion (sampling/createMessage)."""

ElicitationHook = Callable[
    [str, types.ElicitRequestParams], Awaitable[types.ElicitResult | types.ErrorData]
]
"""`(upstream, params)`: the upstream asks the user for input (elicitation/create)."""

RootsHook = Callable[[str], Awaitable[types.ListRootsResult | types.ErrorData]]
"""`(upstream)`: the upstream asks for the client's roots (roots/list)."""


@dataclass(frozen=True)
class UpstreamHooks:
    """What the gateway wants to hear; every hook is optional.

    An unset sampling/elicitation/roots hook is not advertised to the upstream, and a
    request for it anyway is answered with an MCP error, so the upstream never hangs.
    """

    on_list_changed: ListChangedHook | None = None
    on_resource_updated: ResourceUpdatedHook | None = None
    on_log: LogHook | None = None
    sampling: SamplingHook | None = None
    elicitation: ElicitationHook | None = None
    list_roots: RootsHook | None = None
    log_level: types.LoggingLevel = "info"
    """The level 2026-07-28 upstreams are asked to log at when `on_log` is set."""

    def for_member(self, member: int) -> UpstreamHooks:
        """These hooks for a connection carrying `member`'s grant: what its upstream asks
        (sampling, elicitation, roots) or logs is passed on under `caller_route(upstream,
        member)`, so it reaches only calls routed there, never another member's."""

        def routed(hook):
            if hook is None:
                return None
            return lambda upstream, *args: hook(caller_route(upstream, member), *args)

        return replace(
            self,
            on_log=routed(self.on_log),
            sampling=routed(self.sampling),
            elicitation=routed(self.elicitation),
            list_roots=routed(self.list_roots),
        )
