"""What upstreams announce reaches the sessions that see them, and 2026-07-28 listeners."""

from __future__ import annotations

from dataclasses import dataclass, field

import mcp_types as types
import pytest

from gateway.catalog.upstream_listing import UpstreamListing
from gateway.sessions.list_change_bus import ListChangeBus
from gateway.sessions.notifications import NotificationFanOut
from gateway.sessions.registry import SessionRegistry
from gateway.upstreams import UpstreamSpec

pytestmark = pytest.mark.anyio


@dataclass
class Connection:
    sent: list[tuple[str, object]] = field(default_factory=list)

    async def notify(self, method: str, params: object) -> None:
        self.sent.append((method, params))


@dataclass(frozen=True)
class Identity:
    owner_id: int | None


@dataclass
class Session:
    """What the fan-out reads of a gateway session."""

    upstreams: set[str]
    connection: Connection | None = field(default_factory=Connection)
    kinds: list[str] = field(default_factory=list)
    identity: Identity = field(default_factory=lambda: Identity(None))

    def sees_upstream(self, name: str) -> bool:
        return name in self.upstreams

    async def notify_list_changed(self, kind: str) -> None:
        self.kinds.append(kind)


class Bus(ListChangeBus):
    def __init__(self) -> None:
        super().__init__()
        self.published: list[str] = []

    async def publish(self, kind: str) -> None:
        self.published.append(kind)


def fan_out(**sessions: Session) -> tuple[NotificationFanOut, Bus]:
    registry = SessionRegistry(services=None, forwarding=None)  # type: ignore[arg-type]
    registry._sessions.update(sessions)  # type: ignore[arg-type]
    bus = Bus()
    return NotificationFanOut(registry, listings=None, list_changes=bus), bus  # type: ignore[arg-type]


async def test_a_list_change_reaches_connected_sessions_that_see_the_upstream_and_the_bus():
    files, other, stateless = Session({"files"}), Session({"time"}), Session({"files"}, None)
    notifications, bus = fan_out(a=files, b=other, c=stateless)
    await notifications.announce("files", "tools")
    assert files.kinds == ["tools"]
    assert other.kinds == [] and stateless.kinds == []  # the bus tells 2026-07-28 clients
    assert bus.published == ["tools"]


async def test_a_late_upstream_announces_only_the_lists_it_has():
    session = Session({"slow"})
    notifications, bus = fan_out(a=session)
    spec = UpstreamSpec(name="slow", transport="stdio", command="x")
    prompt = types.Prompt(name="p")
    await notifications.on_late_upstream("slow", UpstreamListing(spec=spec, prompts=[prompt]))
    assert session.kinds == bus.published == ["tools", "prompts"]


async def test_an_upstream_log_message_is_passed_on_under_the_upstreams_name():
    files, other = Session({"files"}), Session({"time"})
    notifications, _ = fan_out(a=files, b=other)
    params = types.LoggingMessageNotificationParams(level="info", logger="io", data="read")
    await notifications.on_log("files", params)
    assert files.connection.sent == [
        ("notifications/message", {"level": "info", "logger": "files/io", "data": "read"})
    ]
    assert other.connection.sent == []


async def test_a_log_message_from_a_members_connection_reaches_only_that_members_sessions():
    ann, ben, team = (Session({"hosted"}, identity=Identity(owner)) for owner in (7, 8, None))
    notifications, _ = fan_out(a=ann, b=ben, c=team)
    params = types.LoggingMessageNotificationParams(level="info", data="about ann's account")
    await notifications.on_log("hosted", params, member=7)
    assert [len(s.connection.sent) for s in (ann, ben, team)] == [1, 0, 0]
