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

import re
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

SUMMARY_CHARS = 160
DESCRIPTION_CHARS = 120
LONG_INSTRUCTIONS = 200
SCHEMA_DOC_KEYS = frozenset({"description", "title", "examples", "$comment"})
NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass
class ServerCatalog:
    """One upstream's part of a client's catalog, with exposed names."""

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
    bytes_before: int = 0
    bytes_after: int = 0

    @property
    def indexing(self) -> bool:
        """Whether anything was moved behind search."""
        return bool(self.phases)


def wire_size(item: Any) -> int:
    """Bytes of an item (or list of items) as compact JSON, as the SDK puts it on the wire."""
    if isinstance(item, list):
        return 2 + sum(wire_size(x) + 1 for x in item)
    if isinstance(item, str):
        return len(item.encode())
    return len(item.model_dump_json(by_alias=True, exclude_none=True).encode())


def first_sentence(text: str, limit: int) -> str:
    """The first sentence (or line) of `text`, at most `limit` characters."""
    text = " ".join(text.strip().split("\n\n", 1)[0].split())
    sentence = SENTENCE_END.split(text, 1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def strip_schema_docs(schema: Any, *, names: bool = False) -> Any:
    """A JSON schema without documentation keywords; property names are left alone."""
    if isinstance(schema, list):
        return [strip_schema_docs(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {key: strip_schema_docs(value) for key, value in schema.items()}
    return {
        key: strip_schema_docs(value, names=key in NAME_MAPS)
        for key, value in schema.items()
        if key not in SCHEMA_DOC_KEYS
    }


def shorten_tool(tool: types.Tool) -> types.Tool:
    """A tool with a one-sentence description and an undocumented (but intact) schema."""
    return tool.model_copy(
        update={
            "description": first_sentence(tool.description or "", DESCRIPTION_CHARS) or None,
            "input_schema": strip_schema_docs(tool.input_schema),
        }
    )


class _Budget:
    """The running size of what the client would receive; each item is measured once."""

    def __init__(self, plan: CatalogPlan, fixed: int) -> None:
        self.plan = plan
        self.fixed = fixed
        self._sizes: dict[int, tuple[Any, int]] = {}  # id -> (item kept alive, bytes)

    def _items(self, items: list) -> int:
        total = 2
        for item in items:
            known = self._sizes.get(id(item))
            if known is None:
                known = self._sizes[id(item)] = (item, wire_size(item))
            total += known[1] + 1
        return total

    def size(self) -> int:
        plan = self.plan
        return (
            self.fixed
            + self._items(plan.tools)
            + self._items(plan.prompts)
            + self._items(plan.resources)
            + self._items(plan.templates)
            + sum(len(name) + len(text.encode()) + 5 for name, text in plan.instructions.items())
            + len(plan.directory.encode())
        )


def plan_catalog(
    servers: list[ServerCatalog],
    *,
    threshold: int,
    fixed_tools: list[types.Tool],
    fixed_bytes: int = 0,
) -> CatalogPlan:
    """Apply the phases in order until the catalog fits `threshold` bytes.

    `fixed_tools` (the index tools) and `fixed_bytes` (text the instructions always carry)
    count against the budget but are never deferred.
    """
    plan = CatalogPlan(
        tools=[t for s in servers for t in s.tools],
        prompts=[p for s in servers for p in s.prompts],
        resources=[r for s in servers for r in s.resources],
        templates=[t for s in servers for t in s.templates],
        instructions={s.name: s.instructions for s in servers if s.instructions},
    )
    budget = _Budget(plan, fixed=wire_size(fixed_tools) + fixed_bytes)
    plan.bytes_before = plan.bytes_after = budget.size()
    for phase in (_summarise_instructions, _shorten_tools, _defer_servers, _defer_others, _minimal):
        if plan.bytes_after <= threshold:
            break
        phase(plan, servers, budget, threshold)
        plan.phases.append(phase.__doc__.split(":")[0])
        plan.bytes_after = budget.size()
    return plan


def _summarise_instructions(plan, servers, budget, threshold) -> None:
    """instructions: long server instructions are indexed and summarised."""
    for name, text in list(plan.instructions.items()):
        if len(text) > LONG_INSTRUCTIONS:
            summary = first_sentence(text, SUMMARY_CHARS)
            plan.instructions[name] = f'{summary} (full text: search source "mcp/{name}")'


def _shorten_tools(plan, servers, budget, threshold) -> None:
    """descriptions: tool descriptions shortened, schema documentation dropped."""
    plan.tools = [shorten_tool(tool) for tool in plan.tools]


def _directory_line(server: ServerCatalog, *, with_tools: bool) -> str:
    purpose = first_sentence(server.instructions or server.title or "", 100)
    line = f"- {server.name}" + (f": {purpose}" if purpose else "")
    if with_tools:
        names = ", ".join(t.name.split("__", 1)[-1] for t in server.tools)
        line += f" Tools: {names}."
    else:
        line += f" ({len(server.tools)} tools)"
    return line


def _render_directory(plan: CatalogPlan, servers: list[ServerCatalog], *, with_tools: bool) -> None:
    deferred = [s for s in servers if s.name in plan.deferred_servers]
    if not deferred:
        plan.directory = ""
        return
    lines = [
        'Deferred servers (find their tools with the search tool, source "mcp/<server>"; '
        "found tools become available, and can be called by name at once):",
        *(_directory_line(s, with_tools=with_tools) for s in deferred),
    ]
    plan.directory = "\n".join(lines)


def _defer_server(plan: CatalogPlan, server: ServerCatalog) -> None:
    names = {tool.name for tool in server.tools}
    plan.deferred_tools.update({tool.name: tool for tool in server.tools})
    plan.tools = [tool for tool in plan.tools if tool.name not in names]
    plan.deferred_servers.append(server.name)
    plan.instructions.pop(server.name, None)


def _defer_servers(plan, servers, budget, threshold) -> None:
    """defer-servers: whole servers deferred, largest first, behind a directory."""
    sizes = {s.name: wire_size(s.tools) for s in servers}
    for server in sorted(servers, key=lambda s: (-sizes[s.name], s.name)):
        if budget.size() <= threshold:
            break
        if server.tools:
            _defer_server(plan, server)
            _render_directory(plan, servers, with_tools=True)


def _defer_others(plan, servers, budget, threshold) -> None:
    """defer-resources-prompts: resources, templates and prompts deferred."""
    plan.deferred_prompts.update({p.name: p for p in plan.prompts})
    plan.deferred_resources.update({str(r.uri): r for r in plan.resources})
    plan.deferred_resources.update({t.uri_template: t for t in plan.templates})
    plan.prompts, plan.resources, plan.templates = [], [], []


def _minimal(plan, servers, budget, threshold) -> None:
    """minimal: only the index tools and a short directory."""
    for server in servers:
        if server.name not in plan.deferred_servers:
            _defer_server(plan, server)
    plan.instructions.clear()
    _render_directory(plan, servers, with_tools=False)
