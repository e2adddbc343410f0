"""How one upstream is doing in this worker: state, last error, last lines of its stderr.

Read by the admin (which runs in the same daphne process as the gateway); nothing here
starts the gateway or an upstream.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gateway.catalog.listings import PENDING
from gateway.models import Upstream
from gateway.runtime import running_gateway
from gateway.upstream_auth.grant_store import upstream_grant_problems
from gateway.upstream_config.preflight import start_problem
from gateway.upstreams import stderr_tail

SHORT_REASON_CHARS = 70


@dataclass(frozen=True)
class UpstreamHealth:
    """How one configured upstream is doing in this worker."""

    name: str
    enabled: bool
    state: str  # "connected", "starting", "failing", "not started" or "disabled"
    error: str | None
    tools: int | None
    last_stderr: str | None = None
    """Its last stderr line, only when it is failing: a healthy upstream's stderr is chatter."""


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


@dataclass(frozen=True)
class HealthBadge:
    """One upstream's health in a few words, for the upstream list."""

    level: str  # "ok", "failing", "starting", "idle" or "disabled"
    text: str
    detail: str = ""
    """The whole reason, when `text` cuts it short."""


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


def health_badge(upstream: Upstream) -> HealthBadge:
    """How `upstream` is doing in this worker or, not started yet, whether it could start."""
    if not upstream.enabled:
        return HealthBadge("disabled", "disabled")
    stale = upstream_grant_problems(upstream.pk)
    if stale:
        return _failing(f"needs re-authorization: {', '.join(stale)}")
    status = upstream_status(upstream.name)
    if status.state == "connected":
        return HealthBadge("ok", f"ok: {status.tools} tool{'' if status.tools == 1 else 's'}")
    if status.state == "starting":
        return HealthBadge("starting", "starting…")
    if status.state == "failing" and status.error:
        # "upstream 'x' unavailable: why" reads "why" in x's own row.
        return _failing(f"failing: {_own_words(upstream.name, status.error)}")
    problem = start_problem(upstream)
    if problem is not None:
        return _failing(f"won't start: {problem}")
    return HealthBadge("idle", "not started yet")


def _own_words(name: str, error: str) -> str:
    """An `UpstreamError`'s text without the upstream's name and the kind of failure."""
    prefix = re.match(rf"upstream {re.escape(repr(name))} [a-z]+: ", error)
    return error[prefix.end() :] if prefix else error


def _failing(reason: str) -> HealthBadge:
    if len(reason) <= SHORT_REASON_CHARS:
        return HealthBadge("failing", reason)
    return HealthBadge("failing", reason[: SHORT_REASON_CHARS - 1] + "…", reason)


def upstream_health() -> list[UpstreamHealth]:
    """Every configured upstream with its state in this worker's gateway."""
    rows = []
    for name, enabled in Upstream.objects.order_by("name").values_list("name", "enabled"):
        if not enabled:
            rows.append(UpstreamHealth(name, False, "disabled", None, None))
            continue
        status = upstream_status(name)
        stderr = status.last_stderr if status.state == "failing" else None
        rows.append(UpstreamHealth(name, True, status.state, status.error, status.tools, stderr))
    return rows


def upstream_names() -> list[str]:
    """Every configured upstream's name, in order."""
    return list(Upstream.objects.order_by("name").values_list("name", flat=True))
