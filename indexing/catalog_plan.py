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
SENTENCE_END = re.compile(r"[.!?]\s")
CONTAINERS = (dict, list)
DIRECTORY_HEADING = (
    'Deferred servers (find their tools with the search tool, source "mcp/<server>"; '
    "found tools become available, and can be called by name at once):"
)


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
    # What `model_dump_json` runs, without decoding the bytes only to encode them again.
    return len(item.__pydantic_serializer__.to_json(item, by_alias=True, exclude_none=True))


def first_sentence(text: str, limit: int) -> str:
    """The first sentence (or line) of `text`, at most `limit` characters."""
    text = " ".join(text.strip().split("\n\n", 1)[0].split())
    end = SENTENCE_END.search(text)
    sentence = text[: end.start() + 1] if end else text
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def strip_schema_docs(schema: Any, *, names: bool = False) -> Any:
    """A JSON schema without documentation keywords; property names are left alone.

    Parts with nothing to strip are shared with `schema`, not copied.
    """
    # Only containers are passed on: most values are scalars, and a call each added up.
    if isinstance(schema, list):
        stripped = [strip_schema_docs(x) if isinstance(x, CONTAINERS) else x for x in schema]
    elif not isinstance(schema, dict):
        return schema
    elif names:  # property (or definition) names: every key is kept, whatever it is called
        stripped = {
            key: strip_schema_docs(value) if isinstance(value, CONTAINERS) else value
            for key, value in schema.items()
        }
    else:
        stripped = {
            key: strip_schema_docs(value, names=key in NAME_MAPS)
            if isinstance(value, CONTAINERS)
            else value
            for key, value in schema.items()
            if key not in SCHEMA_DOC_KEYS
        }
    # An unchanged part is returned itself, so only what lost documentation is kept twice.
    return schema if stripped == schema else stripped


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
        self._sizes: dict[int, int] = {}  # id(item) -> bytes
        self._measured: list[Any] = []  # the items measured, kept alive so no id is reused

    def item(self, item: Any) -> int:
        """Bytes of one item, as `wire_size` counts them, measured on first use."""
        size = self._sizes.get(id(item))
        if size is None:
            size = self._sizes[id(item)] = wire_size(item)
            self._measured.append(item)
        return size

    def items(self, items: list) -> int:
        """Bytes of a list of items, as `wire_size` counts them."""
        return 2 + sum(self.item(item) + 1 for item in items)

    def size(self) -> int:
        plan = self.plan
        return (
            self.fixed
            + self.items(plan.tools)
            + self.items(plan.prompts)
            + self.items(plan.resources)
            + self.items(plan.templates)
            + sum(_instructions_bytes(name, text) for name, text in plan.instructions.items())
            + len(plan.directory.encode())
        )


def _instructions_bytes(name: str, text: str) -> int:
    """What one server's instructions add to the client's instructions."""
    return len(name) + len(text.encode()) + 5


def plan_catalog(
    servers: list[ServerCatalog],
    *,
    threshold: int,
    fixed_tools: list[types.Tool],
    fixed_bytes: int = 0,
) -> CatalogPlan:
    """Apply the phases in order until the catalog fits `threshold` bytes.

    `fixed_tools` (the index tools) and `fixed_bytes` (text the instructions always carry)
    count against the budget but are never deferred. Server names must be distinct.
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
    # The size is kept up to date per server deferred (its listed tools, its instructions,
    # its directory line): re-measuring everything after each one was quadratic.
    listed: dict[str, int] = {}  # exposed tool name -> bytes its listed tools take
    for tool in plan.tools:
        listed[tool.name] = listed.get(tool.name, 0) + budget.item(tool) + 1
    size = budget.size()  # there is no directory yet
    lines: dict[str, str] = {}
    deferring: list[ServerCatalog] = []
    for server in sorted(servers, key=lambda s: (-budget.items(s.tools), s.name)):
        if size <= threshold:
            break
        if server.tools:
            deferring.append(server)
            lines[server.name] = line = _directory_line(server, with_tools=True)
            size += len(line.encode()) + 1  # a line break and the line, below the heading
            if len(lines) == 1:
                size += len(DIRECTORY_HEADING.encode())
            size -= sum(listed.pop(tool.name, 0) for tool in server.tools)
            if server.name in plan.instructions:
                size -= _instructions_bytes(server.name, plan.instructions[server.name])
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
