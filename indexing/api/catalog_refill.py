"""After deferral, fill the budget with the tools a client is likeliest to call.

Deferring whole servers can leave room, and the `minimal` phase can leave nothing but
the index tools. This step lists tools in the order a client is likeliest to call them
while they fit: the tools it used (most and most recently first), then the ones the
phases kept listed, then the smallest servers whole, then what else fits; the rest stays
deferred behind search.
"""

from __future__ import annotations

from collections.abc import Mapping

import mcp_types as types

from indexing.api.catalog_budget import CatalogBudget


def refill(
    plan,
    servers: list,
    budget: CatalogBudget,
    threshold: int,
    usage: Mapping[str, float],
) -> list[str]:
    """Choose again, once servers were deferred, which tools are listed: as many as fit, in
    the order above. Returns the names listed that the phases had deferred."""
    if not plan.deferred_tools:
        return []
    server_of = {tool.name: server.name for server in servers for tool in server.tools}
    server_bytes = {
        server.name: sum(budget.tool(t) + 1 for t in server.tools) for server in servers
    }
    position = {tool.name: n for n, tool in enumerate(t for s in servers for t in s.tools)}

    was_deferred = set(plan.deferred_tools)

    def order(tool: types.Tool) -> tuple:
        # Used tools, then those the phases kept (they fit together), then the smallest servers.
        server = server_of.get(tool.name, "")
        kept_by_phases = tool.name not in was_deferred
        return (
            -usage.get(tool.name, 0.0),
            not kept_by_phases,
            server_bytes.get(server, 0),
            server,
            tool.name,
        )

    pool = sorted([*plan.tools, *plan.deferred_tools.values()], key=order)
    room = threshold - budget.besides_tools()
    chosen: list[types.Tool] = []
    for tool in pool:
        cost = budget.tool(tool) + 1
        if cost <= room:
            room -= cost
            chosen.append(tool)
    names = {tool.name for tool in chosen}
    plan.tools = sorted(chosen, key=lambda tool: position.get(tool.name, 0))
    plan.deferred_tools = {tool.name: tool for tool in pool if tool.name not in names}
    return [tool.name for tool in chosen if tool.name in was_deferred]
