"""Fit a client's catalog into its budget in progressive phases, least damage first.

1. `instructions`: long server instructions are indexed; a one-line summary stays.
2. `descriptions`: tool descriptions are cut to their first sentence and parameter
   documentation is dropped from schemas (structure, types and `required` stay intact).
3. `defer-servers`: whole servers' tools are deferred, largest first; a directory
   (server, purpose, tool names) stays in the instructions.
4. `defer-resources-prompts`: resources, templates and prompts are deferred too.
5. `minimal`: every server is deferred; the directory keeps server names and counts.
Deferred items are found with the search tool and activated for the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import mcp_types as types

from indexing.api.catalog_budget import CatalogBudget, ListedTools, instructions_bytes, wire_size
from indexing.api.catalog_refill import refill
from indexing.api.catalog_shortening import first_sentence
from localrouter.tool_names import tool_part

SUMMARY_CHARS = 160
LONG_INSTRUCTIONS = 200
DIRECTORY_HEADING = (
    'Deferred servers (find their tools with the search tool, source "mcp/<server>"; '
    "found tools become available, and can be called by name at once):"
)


@dataclass
class ServerCatalog:
    """One upstream's tools, prompts, resources and instructions (with the names it lists
    them under in `gateway.catalog.upstream_listing.UpstreamListing`, exposed names in a client's
    catalog)."""

    name: str
    tools: list[types.Tool] = field(default_factory=list)
    prompts: list[types.Prompt] = field(default_factory=list)
    resources: list[types.Resource] = field(default_factory=list)
    templates: list[types.ResourceTemplate] = field(default_factory=list)
    instructions: str | None = None
    title: str | None = None


@dataclass
class CatalogPlan:
    """What a client is shown, what is deferred, and how it came to be."""

    tools: list[types.Tool]
    prompts: list[types.Prompt]
    resources: list[types.Resource]
    templates: list[types.ResourceTemplate]
    instructions: dict[str, str]
    directory: str = ""
    phases: list[str] = field(default_factory=list)
    deferred_tools: dict[str, types.Tool] = field(default_factory=dict)
    deferred_prompts: dict[str, types.Prompt] = field(default_factory=dict)
    deferred_resources: dict[str, types.Resource | types.ResourceTemplate] = field(
        default_factory=dict
    )
    deferred_servers: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Deferred tools listed again because they fit, the client's used tools first."""
    bytes_before: int = 0
    bytes_after: int = 0

    @property
    def indexing(self) -> bool:
        """Whether anything was moved behind search."""
        return bool(self.phases)

    @classmethod
    def of(cls, servers: list[ServerCatalog]) -> CatalogPlan:
        """Every server's items, all shown, nothing planned yet."""
        return cls(
            tools=[t for s in servers for t in s.tools],
            prompts=[p for s in servers for p in s.prompts],
            resources=[r for s in servers for r in s.resources],
            templates=[t for s in servers for t in s.templates],
            instructions={s.name: s.instructions for s in servers if s.instructions},
        )


def plan_catalog(
    servers: list[ServerCatalog],
    *,
    threshold: int,
    fixed_tools: list[types.Tool],
    fixed_bytes: int = 0,
    usage: Mapping[str, float] | None = None,
) -> CatalogPlan:
    """Apply the phases in order until the catalog fits `threshold` bytes.

    `fixed_tools` (the index tools) and `fixed_bytes` (text the instructions always carry)
    count against the budget but are never deferred. Server names must be distinct.
    With `usage` (exposed tool name -> how much this client uses it), deferred tools are
    then listed again while they fit, the used ones first (`catalog_refill`).
    """
    plan = CatalogPlan.of(servers)
    budget = CatalogBudget(plan, fixed=wire_size(fixed_tools) + fixed_bytes)
    plan.bytes_before = budget.size()
    for phase in (_summarise_instructions, _shorten_tools, _defer_servers, _defer_others, _minimal):
        if budget.fits(threshold):
            break
        phase(plan, servers, budget, threshold)
        plan.phases.append(phase.__doc__.split(":")[0])
    if usage is not None:
        plan.kept = refill(plan, servers, budget, threshold, usage)
    plan.bytes_after = budget.size()
    # Only now, with the deferred tools gone, are the listed tools' short forms all built.
    plan.tools = [budget.listed(tool) for tool in plan.tools]
    return plan


def _summarise_instructions(plan, servers, budget, threshold) -> None:
    """instructions: long server instructions are indexed and summarised."""
    for name, text in list(plan.instructions.items()):
        if len(text) > LONG_INSTRUCTIONS:
            summary = first_sentence(text, SUMMARY_CHARS)
            plan.instructions[name] = f'{summary} (full text: search source "mcp/{name}")'


def _shorten_tools(plan, servers, budget, threshold) -> None:
    """descriptions: tool descriptions shortened, schema documentation dropped."""
    budget.short = True  # `plan_catalog` lists the tools not deferred in their short form


def _directory_line(server: ServerCatalog, *, with_tools: bool) -> str:
    purpose = first_sentence(server.instructions or server.title or "", 100)
    line = f"- {server.name}" + (f": {purpose}" if purpose else "")
    if with_tools:
        names = ", ".join(tool_part(t.name) for t in server.tools)
        line += f" Tools: {names}."
    else:
        line += f" ({len(server.tools)} tools)"
    return line


def _directory(lines: list[str]) -> str:
    return "\n".join([DIRECTORY_HEADING, *lines]) if lines else ""


def _defer(plan: CatalogPlan, servers: list[ServerCatalog]) -> None:
    """Move whole servers behind search, in the given order."""
    names: set[str] = set()
    for server in servers:
        names.update(tool.name for tool in server.tools)
        plan.deferred_tools.update({tool.name: tool for tool in server.tools})
        plan.deferred_servers.append(server.name)
        plan.instructions.pop(server.name, None)
    plan.tools = [tool for tool in plan.tools if tool.name not in names]


def _defer_servers(plan, servers, budget, threshold) -> None:
    """defer-servers: whole servers deferred, largest first, behind a directory."""
    order = sorted(servers, key=lambda s: (-budget.items(s.tools), s.name))
    # The size is kept up to date per server deferred (its listed tools, its instructions,
    # its directory line): re-measuring everything after each one was quadratic. Until this
    # phase `plan.tools` are the servers' tools; the smallest servers' are measured first,
    # as they are the ones likeliest to stay listed.
    listed = ListedTools(budget, [tool for server in order for tool in server.tools])
    rest = budget.besides_tools()  # there is no directory yet
    lines: dict[str, str] = {}
    deferring: list[ServerCatalog] = []
    for server in order:
        if listed.fit(threshold - rest):
            break
        if server.tools:
            deferring.append(server)
            lines[server.name] = line = _directory_line(server, with_tools=True)
            rest += len(line.encode()) + 1  # a line break and the line, below the heading
            if len(lines) == 1:
                rest += len(DIRECTORY_HEADING.encode())
            listed.drop(server.tools)
            if server.name in plan.instructions:
                rest -= instructions_bytes(server.name, plan.instructions[server.name])
    _defer(plan, deferring)
    plan.directory = _directory([lines[s.name] for s in servers if s.name in lines])


def _defer_others(plan, servers, budget, threshold) -> None:
    """defer-resources-prompts: resources, templates and prompts deferred."""
    plan.deferred_prompts.update({p.name: p for p in plan.prompts})
    plan.deferred_resources.update({str(r.uri): r for r in plan.resources})
    plan.deferred_resources.update({t.uri_template: t for t in plan.templates})
    plan.prompts, plan.resources, plan.templates = [], [], []


def _minimal(plan, servers, budget, threshold) -> None:
    """minimal: only the index tools and a short directory."""
    _defer(plan, [s for s in servers if s.name not in plan.deferred_servers])
    plan.instructions.clear()
    deferred = set(plan.deferred_servers)
    plan.directory = _directory(
        [_directory_line(s, with_tools=False) for s in servers if s.name in deferred]
    )
