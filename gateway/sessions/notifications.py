"""What upstreams announce, passed on to the clients that see them.

List changes re-read the upstream's listing and reach handshake-era sessions as
`notifications/<kind>/list_changed` and 2026-07-28 listeners through the bus; an
upstream that missed the start budget is announced once ready; log messages go to the
connected sessions that use the upstream, their logger prefixed with its name.
"""

from __future__ import annotations

import mcp_types as types

from gateway.catalog.listings import Listings
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.sessions.list_change_bus import ListChangeBus
from gateway.sessions.registry import SessionRegistry
from gateway.upstreams.hooks import ListKind


def named_log(
    upstream: str, params: types.LoggingMessageNotificationParams
) -> types.LoggingMessageNotificationParams:
    """An upstream's log message with its logger prefixed by the upstream's name."""
    return params.model_copy(update={"logger": f"{upstream}/{params.logger or upstream}"})


class NotificationFanOut:
    """The upstream hooks for list changes, late upstreams and log messages."""

    def __init__(
        self, sessions: SessionRegistry, listings: Listings, list_changes: ListChangeBus
    ) -> None:
        self.sessions = sessions
        self.listings = listings
        self.list_changes = list_changes

    async def on_list_changed(self, upstream: str, kind: ListKind) -> None:
        await self.listings.refresh(upstream)
        await self.announce(upstream, kind)

    async def on_late_upstream(self, upstream: str, listing: UpstreamListing) -> None:
        """An upstream that missed the start budget is ready: its lists join the sessions."""
        await self.announce(upstream, "tools")
        if listing.resources or listing.templates:
            await self.announce(upstream, "resources")
        if listing.prompts:
            await self.announce(upstream, "prompts")

    async def announce(self, upstream: str, kind: ListKind) -> None:
        """Tell the clients that see `upstream` that one of its lists changed."""
        for session in self.sessions.connected_using(upstream):
            await session.notify_list_changed(kind)
        await self.list_changes.publish(kind)

    async def on_log(
        self,
        upstream: str,
        params: types.LoggingMessageNotificationParams,
        *,
        member: int | None = None,
    ) -> None:
        """Pass an upstream's log message on to the sessions that use it; from a connection
        carrying `member`'s grant, to that member's sessions only."""
        data = named_log(upstream, params).model_dump(by_alias=True, mode="json", exclude_none=True)
        for session in self.sessions.connected_using(upstream):
            if member is not None and session.identity.owner_id != member:
                continue
            assert session.connection is not None  # connected_using: only connected ones
            await session.connection.notify("notifications/message", data)
