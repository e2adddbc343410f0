"""What the session reports read of this worker's running gateway, through an interface.

The reports are a layer below the gateway and never import it. The gateway hands the indexing
app its `LiveState` once Django has loaded the apps (`gateway.apps`, `install_live_state`);
without a gateway (a process without the gateway app) `NoLiveState` answers: no live stores,
no upstream names and no health rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from django.apps import apps

if TYPE_CHECKING:
    from indexing.engine.store import SessionStore


class UpstreamHealthRow(Protocol):
    """One configured upstream as the overview shows it."""

    @property
    def name(self) -> str: ...
    @property
    def enabled(self) -> bool: ...
    @property
    def state(self) -> str: ...
    @property
    def error(self) -> str | None: ...
    @property
    def tools(self) -> int | None: ...
    @property
    def last_stderr(self) -> str | None: ...


class LiveState(Protocol):
    """What the reports read of the live gateway: session stores and upstreams."""

    def live_store(self, record_key: str) -> SessionStore | None:
        """The index store of the live session behind a record, or None once it ended."""
        ...

    def upstream_names(self) -> Sequence[str]:
        """Every configured upstream's name, in order (the reports' upstream filter)."""
        ...

    def upstream_health(self) -> Sequence[UpstreamHealthRow]:
        """Every configured upstream with its state in this worker (the overview)."""
        ...


class NoLiveState:
    """The live state without a gateway: nothing is live, no upstream is known."""

    def live_store(self, record_key: str) -> SessionStore | None:
        return None

    def upstream_names(self) -> Sequence[str]:
        return ()

    def upstream_health(self) -> Sequence[UpstreamHealthRow]:
        return ()


def live_state() -> LiveState:
    """The live state the gateway installed on the indexing app, else `NoLiveState`."""
    return apps.get_app_config("indexing").live_state


def install_live_state(state: LiveState) -> None:
    """Hand the reports the live state they read (the gateway does, once, at start-up)."""
    apps.get_app_config("indexing").live_state = state
