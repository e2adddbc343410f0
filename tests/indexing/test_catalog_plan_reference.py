"""The catalog plan decides exactly as a straightforward one would that measures everything.

`plan_catalog` builds and measures a tool's short form only when a decision needs it; the
reference below shortens every tool and re-measures the whole catalog before each step.
"""

import mcp_types as types
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.api.catalog_budget import CatalogBudget
from indexing.api.catalog_plan import (
    DIRECTORY_HEADING,
    LONG_INSTRUCTIONS,
    SUMMARY_CHARS,
    CatalogPlan,
    ServerCatalog,
    plan_catalog,
)
from indexing.api.catalog_shortening import first_sentence, shorten_tool
from indexing.api.tool_results import index_tools

FIXED = index_tools("IndexSearch", "IndexRead")


def json_bytes(item) -> int:
    if isinstance(item, list):
        return 2 + sum(json_bytes(x) + 1 for x in item)
    return len(item.model_dump_json(by_alias=True, exclude_none=True).encode())


def reference_plan(
    servers: list[ServerCatalog], threshold: int, fixed_bytes: int, seen: list[int]
) -> CatalogPlan:
    """The plan, measuring the whole catalog before every step; `seen` collects the sizes."""
    plan = CatalogPlan.of(servers)

    def size() -> int:
        seen.append(
            json_bytes(FIXED)
            + fixed_bytes
            + sum(json_bytes(x) for x in (plan.tools, plan.prompts, plan.resources, plan.templates))
            + sum(len(n) + len(t.encode()) + 5 for n, t in plan.instructions.items())
            + len(plan.directory.encode())
        )
        return seen[-1]

    def line(server: ServerCatalog, with_tools: bool) -> str:
        purpose = first_sentence(server.instructions or server.title or "", 100)
        text = f"- {server.name}" + (f": {purpose}" if purpose else "")
        if with_tools:
            return (
                text + " Tools: " + ", ".join(t.name.split("__", 1)[-1] for t in server.tools) + "."
            )
        return text + f" ({len(server.tools)} tools)"

    def directory(with_tools: bool) -> None:
        lines = [line(s, with_tools) for s in servers if s.name in plan.deferred_servers]
        plan.directory = "\n".join([DIRECTORY_HEADING, *lines]) if lines else ""

    def defer(server: ServerCatalog, with_tools: bool = True) -> None:
        names = {t.name for t in server.tools}
        plan.tools = [t for t in plan.tools if t.name not in names]
        plan.deferred_tools.update({t.name: t for t in server.tools})
        plan.deferred_servers.append(server.name)
        plan.instructions.pop(server.name, None)
        directory(with_tools)

    def instructions() -> None:
        for name, text in list(plan.instructions.items()):
            if len(text) > LONG_INSTRUCTIONS:
                summary = first_sentence(text, SUMMARY_CHARS)
                plan.instructions[name] = f'{summary} (full text: search source "mcp/{name}")'

    def descriptions() -> None:
        plan.tools = [shorten_tool(t) for t in plan.tools]

    def defer_servers() -> None:
        for server in sorted(servers, key=lambda s: (-json_bytes(s.tools), s.name)):
            if size() <= threshold:
                break
            if server.tools:
                defer(server)

    def defer_resources_prompts() -> None:
        plan.deferred_prompts.update({p.name: p for p in plan.prompts})
        plan.deferred_resources.update({str(r.uri): r for r in plan.resources})
        plan.deferred_resources.update({t.uri_template: t for t in plan.templates})
        plan.prompts, plan.resources, plan.templates = [], [], []

    def minimal() -> None:
        for server in servers:
            if server.name not in plan.deferred_servers:
                defer(server)
        plan.instructions.clear()
        directory(with_tools=False)

    plan.bytes_before = plan.bytes_after = size()
    phases = {
        "instructions": instructions,
        "descriptions": descriptions,
        "defer-servers": defer_servers,
        "defer-resources-prompts": defer_resources_prompts,
        "minimal": minimal,
    }
    for name, phase in phases.items():
        if plan.bytes_after <= threshold:
            break
        phase()
        plan.phases.append(name)
        plan.bytes_after = size()
    return plan


def wire(plan: CatalogPlan) -> dict:
    """Everything a plan says, as the client and the gateway would see it."""

    def dump(items) -> list[str]:
        return [item.model_dump_json(by_alias=True, exclude_none=True) for item in items]

    def keyed(items: dict) -> list[tuple[str, str]]:
        return [(key, *dump([item])) for key, item in items.items()]

    return {
        "tools": dump(plan.tools),
        "prompts": dump(plan.prompts),
        "resources": dump(plan.resources),
        "templates": dump(plan.templates),
        "instructions": list(plan.instructions.items()),
        "directory": plan.directory,
        "phases": plan.phases,
        "deferred_tools": keyed(plan.deferred_tools),
        "deferred_prompts": keyed(plan.deferred_prompts),
        "deferred_resources": keyed(plan.deferred_resources),
        "deferred_servers": plan.deferred_servers,
        "bytes": (plan.bytes_before, plan.bytes_after),
    }


words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
prose = st.lists(
    st.one_of(words, st.sampled_from([". ", "! ", "\n\n", "\n", " ", '"', "\\", "é", "…"])),
    max_size=60,
).map("".join)
doc_keys = st.sampled_from(["description", "title", "examples", "$comment", "type", "default"])
schemas = st.recursive(
    st.one_of(st.integers(), words, st.none(), st.booleans()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(doc_keys, words), inner, max_size=4),
        st.dictionaries(st.sampled_from(["properties", "$defs"]), st.dictionaries(words, inner)),
    ),
    max_leaves=12,
)
tool_parts = st.tuples(words, st.one_of(st.none(), prose), schemas, st.booleans())


def make_tool(server: str, index: int, parts: tuple) -> types.Tool:
    name, description, schema, titled = parts
    return types.Tool(
        name=f"{server}__{index}{name}",
        title="A title" if titled else None,
        description=description,
        input_schema={"type": "object", "properties": {"p": schema}, "x": schema},
    )


servers_raw = st.lists(
    st.tuples(
        st.from_regex(r"\A[a-z]{1,6}\Z"),
        st.lists(tool_parts, max_size=12),
        st.one_of(st.none(), prose),
        st.integers(0, 2),
    ),
    max_size=6,
    unique_by=lambda s: s[0],
)


def make_servers(raw) -> list[ServerCatalog]:
    return [
        ServerCatalog(
            name=name,
            tools=[make_tool(name, i, parts) for i, parts in enumerate(tools)],
            prompts=[types.Prompt(name=f"{name}-p{i}", description="P.") for i in range(extras)],
            resources=[
                types.Resource(uri=f"file:///{name}/{i}", name=f"r{i}") for i in range(extras)
            ],
            instructions=instructions,
        )
        for name, tools, instructions, extras in raw
    ]


@settings(max_examples=150, deadline=None)
@given(servers_raw, st.integers(0, 300), st.data())
def test_the_plan_is_the_one_a_full_measurement_gives(raw, fixed_bytes, data):
    servers = make_servers(raw)
    sizes: list[int] = []  # every size the reference compares with a threshold, planning for 0
    reference_plan(servers, 0, fixed_bytes, sizes)
    # Thresholds at a byte either side of each decision, where a wrong bound would show.
    threshold = data.draw(st.sampled_from(sizes)) + data.draw(st.integers(-1, 1))
    expected = wire(reference_plan(servers, threshold, fixed_bytes, []))
    actual = plan_catalog(servers, threshold=threshold, fixed_tools=FIXED, fixed_bytes=fixed_bytes)
    assert wire(actual) == expected


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"\A[a-z]{1,6}\Z"), tool_parts)
def test_a_short_form_takes_at_least_the_bound_the_budget_counts_for_it(server, parts):
    tool = make_tool(server, 0, parts)
    budget = CatalogBudget(reference_plan([], 0, 0, []), fixed=0)
    budget.short = True
    floor = budget.tool_floor(tool)
    assert not budget.measured(tool)
    assert json_bytes(shorten_tool(tool)) == budget.tool(tool) >= floor


def test_the_bound_is_exact_for_a_tool_with_only_a_name():
    bare = types.Tool(name="s__é", input_schema={})
    budget = CatalogBudget(reference_plan([], 0, 0, []), fixed=0)
    budget.short = True
    assert budget.tool_floor(bare) == json_bytes(bare) == budget.tool(bare)
