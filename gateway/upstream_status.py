"""How one upstream is doing in this worker: state, last error, last lines of its stderr.

Read by the admin (which runs in the same daphne process as the gateway); nothing here
starts the gateway or an upstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.listings import PENDING
from gateway.models import Upstream
from gateway.runtime import running_gateway
from gateway.upstreams import stderr_tail


@dataclass(frozen=True)
class UpstreamHealth:
    """How one configured upstream is doing in this worker."""

    name: str
    enabled: bool
    state: str  # "connected", "starting", "failing", "not started" or "disabled"
    error: str | None
    tools: int | None
    last_stderr: str | None = None


@dataclass(frozen=True)
class UpstreamStatus:
    """One upstream's state in this worker."""

    state: str  # "not started", "starting", "connected" or "failing"
    error: str | None = None
    tools: int | None = None
    stderr: list[str] = field(default_factory=list)

    @property
    def last_stderr(self) -> str | None:
        return self.stderr[-1] if self.stderr else None


def upstream_status(name: str) -> UpstreamStatus:
    """The state of upstream `name` in this worker's gateway."""
    gateway = running_gateway()
    summary = gateway.listings.summary() if gateway is not None else {}
    stderr = stderr_tail(name)
    if name not in summary:
        return UpstreamStatus("not started", stderr=stderr)
    error, tools = summary[name]
    if error == PENDING:
        return UpstreamStatus("starting", stderr=stderr)
    if error is not None:
        return UpstreamStatus("failing", error=error, stderr=stderr)
    return UpstreamStatus("connected", tools=tools, stderr=stderr)


def upstream_health() -> list[UpstreamHealth]:
    """Every configured upstream with its state in this worker's gateway."""
    rows = []
    for name, enabled in Upstream.objects.order_by("name").values_list("name", "enabled"):
        if not enabled:
            rows.append(UpstreamHealth(name, False, "disabled", None, None))
            continue
        status = upstream_status(name)
        rows.append(
            UpstreamHealth(name, True, status.state, status.error, status.tools, status.last_stderr)
        )
    return rows


def upstream_names() -> list[str]:
    """Every configured upstream's name, in order."""
    return list(Upstream.objects.order_by("name").values_list("name", flat=True))
