"""List changes told to 2026-07-28 clients, which have no session to notify.

They hold a `subscriptions/listen` stream (the SDK's `ListenHandler` on this bus) and
refetch the list; which upstream changed is not told (nothing else leaks).
"""

from __future__ import annotations

from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

from gateway.upstreams.hooks import ListKind

EVENTS = {
    "tools": ToolsListChanged(),
    "resources": ResourcesListChanged(),
    "prompts": PromptsListChanged(),
}


class ListChangeBus:
    """This worker's subscription bus for list changes."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()

    async def publish(self, kind: ListKind | str) -> None:
        """Tell every listener that the tools, resources or prompts list changed."""
        await self.bus.publish(EVENTS[kind])
