"""A client's effective catalog as this worker would plan it now: listed, deferred, and why.

Built from the upstream listings this worker has already read; nothing is started.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clients.models import Client
from gateway.catalog.merged import merge, plan_for
from gateway.runtime import running_gateway
from gateway.sessions.identity import identity_for_client


@dataclass(frozen=True)
class PreviewRow:
    """One tool of the client's catalog."""

    tool: str
    upstream: str
    listed: bool
    why: str


@dataclass
class CatalogPreview:
    """The plan's outcome for one client."""

    rows: list[PreviewRow] = field(default_factory=list)
    threshold: int | None = None
    bytes_before: int = 0
    bytes_after: int = 0
    phases: list[str] = field(default_factory=list)
    not_read: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def listed_count(self) -> int:
        return sum(row.listed for row in self.rows)


def catalog_preview(client: Client, enabled_upstreams: list[str]) -> CatalogPreview:
    """What `client` would be shown by this worker now (synchronous: reads the database)."""
    identity = identity_for_client(client)
    gateway = running_gateway()
    known = gateway.listings.read_so_far() if gateway is not None else {}
    wanted = [name for name in enabled_upstreams if identity.may_use_upstream(name)]
    listings = {name: known[name] for name in wanted if name in known}
    catalog = merge(identity, listings)
    plan = plan_for(identity, catalog)
    preview = CatalogPreview(
        not_read=[name for name in wanted if name not in known],
        unavailable=dict(catalog.unavailable),
    )
    usage = dict(identity.tool_usage)
    settings = identity.settings
    if plan is not None and settings.catalog_indexing_enabled:
        preview.threshold = settings.catalog_threshold
    if plan is not None:
        preview.bytes_before, preview.bytes_after = plan.bytes_before, plan.bytes_after
        preview.phases = list(plan.phases)
    listed = {tool.name for tool in plan.tools} if plan is not None else None
    for tool in catalog.tools:
        upstream = catalog.tool_names.resolve(tool.name)[0]
        shown = listed is None or tool.name in listed
        preview.rows.append(
            PreviewRow(tool.name, upstream, shown, _why(tool.name, shown, plan, usage, settings))
        )
    return preview


def _why(name: str, shown: bool, plan, usage: dict[str, float], settings) -> str:
    if plan is None:
        return "context management is off for this client: everything is listed"
    used = f"used recently (score {usage[name]:g})" if name in usage else ""
    if not shown:
        return (
            f"deferred: the catalog is over {settings.catalog_threshold:,} bytes"
            + (f", though {used}" if used else "")
            + f"; {settings.search_tool_name} finds and activates it, and it can be called by name"
        )
    if not plan.deferred_tools:
        return "the whole catalog fits the budget" + (f"; {used}" if used else "")
    return used or "fits the budget (smaller servers first)"
