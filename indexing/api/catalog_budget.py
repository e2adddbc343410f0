"""The size of a client's catalog, measuring no more than the plan's decisions need.

Items are measured once, as compact JSON, as the SDK puts them on the wire. Once tools are
listed in their short form (the `descriptions` phase), a tool's short form is built and
measured only when a decision needs its exact size; until then a lower bound (its name and
an empty schema) stands in. With many tools listed, the bounds alone already say that the
catalog does not fit, so the tools a plan defers are never shortened at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import mcp_types as types

from indexing.api.catalog_shortening import shorten_tool

# The least any listed tool takes besides its name: a name and an empty input schema.
TOOL_FLOOR = len('{"name":"","inputSchema":{}}')


class PlannedItems(Protocol):
    """What the budget measures of a plan: a `catalog_plan.CatalogPlan` (that module uses
    this one)."""

    tools: list[types.Tool]
    prompts: list[types.Prompt]
    resources: list[types.Resource]
    templates: list[types.ResourceTemplate]
    instructions: dict[str, str]
    directory: str


def wire_size(item: Any) -> int:
    """Bytes of an item (or list of items) as compact JSON, as the SDK puts it on the wire."""
    if isinstance(item, list):
        return 2 + sum(wire_size(x) + 1 for x in item)
    if isinstance(item, str):
        return len(item.encode())
    # What `model_dump_json` runs, without decoding the bytes only to encode them again.
    return len(item.__pydantic_serializer__.to_json(item, by_alias=True, exclude_none=True))


def instructions_bytes(name: str, text: str) -> int:
    """What one server's instructions add to the client's instructions."""
    return len(name) + len(text.encode()) + 5


class CatalogBudget:
    """The running size of what the client would receive; each item is measured once.

    `plan.tools` keeps the tools as given; once `short` is set they count (and are listed,
    see `listed`) in their short form.
    """

    def __init__(self, plan: PlannedItems, fixed: int) -> None:
        self.plan = plan
        self.fixed = fixed
        self.short = False  # tools are listed in their short form
        # id(item) -> (item, bytes); keeping the item keeps its id from being reused.
        self._sizes: dict[int, tuple[Any, int]] = {}
        # id(tool) -> (tool, its short form, bytes of the short form)
        self._short: dict[int, tuple[types.Tool, types.Tool, int]] = {}

    def item(self, item: Any) -> int:
        """Bytes of one item as given, as `wire_size` counts them, measured on first use."""
        known = self._sizes.get(id(item))
        if known is None:
            known = self._sizes[id(item)] = (item, wire_size(item))
        return known[1]

    def items(self, items: list) -> int:
        """Bytes of a list of items as given, as `wire_size` counts them."""
        return 2 + sum(self.item(item) + 1 for item in items)

    def listed(self, tool: types.Tool) -> types.Tool:
        """The tool as the client is shown it: its short form once tools are shortened."""
        return self._short_form(tool)[1] if self.short else tool

    def tool(self, tool: types.Tool) -> int:
        """Exact bytes of a tool as listed."""
        return self._short_form(tool)[2] if self.short else self.item(tool)

    def tool_floor(self, tool: types.Tool) -> int:
        """At most the bytes of a tool as listed: exact once measured, else a lower bound."""
        if not self.short:
            return self.item(tool)
        known = self._short.get(id(tool))
        # JSON escapes only ever lengthen the name.
        return known[2] if known else TOOL_FLOOR + len(tool.name.encode())

    def measured(self, tool: types.Tool) -> bool:
        """Whether `tool_floor` is the exact size of the tool as listed."""
        return not self.short or id(tool) in self._short

    def _short_form(self, tool: types.Tool) -> tuple[types.Tool, types.Tool, int]:
        known = self._short.get(id(tool))
        if known is None:
            short = shorten_tool(tool)
            known = self._short[id(tool)] = (tool, short, wire_size(short))
        return known

    def besides_tools(self) -> int:
        """Bytes of everything but the listed tools (their list's brackets included)."""
        plan = self.plan
        return (
            self.fixed
            + 2
            + self.items(plan.prompts)
            + self.items(plan.resources)
            + self.items(plan.templates)
            + sum(instructions_bytes(name, text) for name, text in plan.instructions.items())
            + len(plan.directory.encode())
        )

    def size(self) -> int:
        """Exact bytes of the catalog as it stands."""
        return self.besides_tools() + sum(self.tool(tool) + 1 for tool in self.plan.tools)

    def fits(self, threshold: int) -> bool:
        """Whether the catalog takes at most `threshold` bytes, measuring only what it must."""
        limit = threshold - self.besides_tools()
        if not self.short:  # every tool as given is measured anyway, for `bytes_before`
            return sum(self.item(tool) + 1 for tool in self.plan.tools) <= limit
        return ListedTools(self, self.plan.tools).fit(limit)


class ListedTools:
    """Tools still listed, by exposed name, with the bytes they take: bounds until measured.

    Tools are measured exactly last to first, so callers put the likeliest to stay listed last.
    """

    def __init__(self, budget: CatalogBudget, tools: Iterable[types.Tool]) -> None:
        self.budget = budget
        self.bytes: dict[str, int] = {}  # exposed name -> bytes its tools take, at least
        self._bounded: list[tuple[types.Tool, int]] = []  # (tool, lower bound counted for it)
        for tool in tools:
            floor = budget.tool_floor(tool)
            self.bytes[tool.name] = self.bytes.get(tool.name, 0) + floor + 1
            if not budget.measured(tool):
                self._bounded.append((tool, floor))
        self.total = sum(self.bytes.values())  # at least what the listed tools take

    def drop(self, tools: Iterable[types.Tool]) -> None:
        """No longer list these tools (nor any other tool of the same name)."""
        for tool in tools:
            self.total -= self.bytes.pop(tool.name, 0)

    def fit(self, limit: int) -> bool:
        """Whether the listed tools take at most `limit` bytes; measures until that is certain."""
        while self.total <= limit:
            while self._bounded and self._bounded[-1][0].name not in self.bytes:
                self._bounded.pop()  # dropped since
            if not self._bounded:
                return True
            tool, floor = self._bounded.pop()
            extra = self.budget.tool(tool) - floor
            self.bytes[tool.name] += extra
            self.total += extra
        return False
