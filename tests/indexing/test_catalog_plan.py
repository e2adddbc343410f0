"""Catalog plans: phases in order, least damage first, nothing out of reach, schemas intact."""

import json
from pathlib import Path

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.api.catalog_budget import wire_size
from indexing.api.catalog_plan import ServerCatalog, plan_catalog
from indexing.api.catalog_shortening import first_sentence, strip_schema_docs
from indexing.api.tool_results import index_tools

CATALOGS = Path(__file__).parents[1] / "fixtures" / "catalogs"
FIXED = index_tools("IndexSearch", "IndexRead")


def tool(name: str, description: str = "Does a thing. More detail here.", **schema) -> types.Tool:
    properties = schema or {"path": {"type": "string", "description": "Where to look."}}
    return types.Tool(
        name=name,
        description=description,
        input_schema={"type": "object", "properties": properties, "required": list(properties)},
    )


def real_servers() -> list[ServerCatalog]:
    servers = []
    for path in sorted(CATALOGS.glob("*.json")):
        data = json.loads(path.read_text())
        tools = [types.Tool.model_validate(t) for t in data["tools"]]
        servers.append(
            ServerCatalog(
                name=path.stem,
                tools=[t.model_copy(update={"name": f"{path.stem}__{t.name}"}) for t in tools],
                prompts=[types.Prompt.model_validate(p) for p in data["prompts"]],
                resources=[types.Resource.model_validate(r) for r in data["resources"]],
                templates=[
                    types.ResourceTemplate.model_validate(r) for r in data["resourceTemplates"]
                ],
                instructions=data.get("instructions"),
            )
        )
    return servers


def visible_and_deferred(plan) -> set[str]:
    return {t.name for t in plan.tools} | set(plan.deferred_tools)


def test_a_catalog_that_fits_is_left_alone():
    servers = [ServerCatalog(name="a", tools=[tool("a__one")], instructions="Short.")]
    plan = plan_catalog(servers, threshold=16_384, fixed_tools=FIXED)
    assert plan.phases == []
    assert plan.tools == servers[0].tools
    assert plan.instructions == {"a": "Short."}
    assert plan.bytes_before == plan.bytes_after <= 16_384


def thresholds_of(servers: list[ServerCatalog]) -> dict[str, int]:
    """Thresholds that each call for one more phase, from the captured catalogs' own sizes."""
    whole = plan_catalog(servers, threshold=10**9, fixed_tools=FIXED).bytes_before
    no_instructions = plan_catalog(servers, threshold=whole - 1, fixed_tools=FIXED).bytes_after
    shortened = plan_catalog(servers, threshold=no_instructions - 1, fixed_tools=FIXED).bytes_after
    return {
        "none": 10**9,
        "instructions": whole - 1,
        "descriptions": no_instructions - 1,
        "defer-servers": shortened - 1,
        "minimal": 4_000,
    }


@pytest.mark.parametrize(
    ("step", "phases"),
    [
        ("none", []),
        ("instructions", ["instructions"]),
        ("descriptions", ["instructions", "descriptions"]),
        ("defer-servers", ["instructions", "descriptions", "defer-servers"]),
        (
            "minimal",
            ["instructions", "descriptions", "defer-servers", "defer-resources-prompts", "minimal"],
        ),
    ],
)
def test_phases_run_in_order_and_stop_once_the_catalog_fits(step, phases):
    servers = real_servers()
    threshold = thresholds_of(servers)[step]
    plan = plan_catalog(servers, threshold=threshold, fixed_tools=FIXED)
    assert plan.phases == phases
    assert plan.bytes_after <= threshold
    assert plan.bytes_before > plan.bytes_after or not phases
    everything = {t.name for s in servers for t in s.tools}
    assert visible_and_deferred(plan) == everything


def test_the_real_catalogs_fit_16_kib_with_servers_deferred_largest_first():
    servers = real_servers()
    plan = plan_catalog(servers, threshold=16_384, fixed_tools=FIXED)
    assert plan.bytes_before > 100_000 and plan.bytes_after <= 16_384
    sizes = {s.name: wire_size(s.tools) for s in servers}
    deferred = plan.deferred_servers
    assert sizes[deferred[0]] == max(sizes.values())
    assert all(f"- {name}" in plan.directory for name in deferred)


def test_servers_are_deferred_only_until_the_catalog_fits():
    servers = real_servers()
    shortened = plan_catalog(servers, threshold=300_000, fixed_tools=FIXED).bytes_after
    fits: dict[int, int] = {}  # servers deferred -> bytes after, as observed

    def plan_at(threshold: int) -> tuple[int, list[str]]:
        plan = plan_catalog(servers, threshold=threshold, fixed_tools=FIXED)
        assert plan.phases == ["instructions", "descriptions", "defer-servers"], threshold
        assert plan.bytes_after <= threshold
        fits[len(plan.deferred_servers)] = plan.bytes_after
        return threshold, plan.deferred_servers

    # With many servers, even deferring them all may not reach 16 KiB (resources and prompts
    # go next): start where deferring servers is enough.
    start = next(
        threshold
        for threshold in range(16_384, shortened, 8_000)
        if "defer-resources-prompts"
        not in plan_catalog(servers, threshold=threshold, fixed_tools=FIXED).phases
    )
    plans = [plan_at(threshold) for threshold in range(start, shortened, 8_000)]
    # A byte either side of each size seen: deferring stops exactly once the catalog fits.
    sizes = [size for size in fits.values() if size > start]
    plans += [plan_at(size - below) for size in sizes for below in (0, 1)]
    order = max((deferred for _, deferred in plans), key=len)
    for threshold, deferred in plans:
        assert deferred == order[: len(deferred)]
        assert all(size > threshold for k, size in fits.items() if k < len(deferred))


def test_a_tool_larger_than_the_budget_is_deferred_with_its_full_definition():
    properties = {f"field{i}": {"type": "string", "description": "x" * 50} for i in range(300)}
    long = tool("big__huge", description="x" * 40_000, **properties)
    plan = plan_catalog(
        [ServerCatalog(name="big", tools=[long])], threshold=4_096, fixed_tools=FIXED
    )
    assert "big__huge" in plan.deferred_tools
    assert plan.deferred_tools["big__huge"] == long
    assert plan.tools == []
    assert plan.bytes_after <= 4_096


def test_shortening_drops_documentation_but_keeps_the_schema_working():
    schema = {
        "type": "object",
        "description": "top",
        "properties": {
            "description": {"type": "string", "description": "a property named description"},
            "item": {"$ref": "#/$defs/Item", "title": "Item"},
        },
        "required": ["description"],
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    }
    stripped = strip_schema_docs(schema)
    assert stripped == {
        "type": "object",
        "properties": {"description": {"type": "string"}, "item": {"$ref": "#/$defs/Item"}},
        "required": ["description"],
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}}},
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Read a file. It must exist.", "Read a file."),
        ("", ""),
        ("No full stop here\n\nSecond paragraph.", "No full stop here"),
        ("a" * 300, "a" * 119 + "…"),
    ],
)
def test_first_sentence(text, expected):
    assert first_sentence(text, 120) == expected


def test_a_thousand_tools_fit_with_every_tool_still_reachable():
    servers = [
        ServerCatalog(name=f"s{n}", tools=[tool(f"s{n}__t{i}") for i in range(100)])
        for n in range(10)
    ]
    plan = plan_catalog(servers, threshold=16_384, fixed_tools=FIXED)
    assert plan.bytes_after <= 16_384
    assert len(visible_and_deferred(plan)) == 1000


names = st.from_regex(r"\A[a-z]{1,8}\Z")
descriptions = st.one_of(st.just(""), st.text(max_size=400))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(names, st.lists(st.tuples(names, descriptions), max_size=30)),
        max_size=6,
        unique_by=lambda s: s[0],
    ),
    st.integers(1024, 40_000),
)
def test_any_catalog_keeps_every_tool_reachable_and_every_schema_intact(raw, threshold):
    servers = [
        ServerCatalog(
            name=server,
            tools=list({f"{server}__{t}": tool(f"{server}__{t}", d) for t, d in tools}.values()),
        )
        for server, tools in raw
    ]
    plan = plan_catalog(servers, threshold=threshold, fixed_tools=FIXED)
    assert visible_and_deferred(plan) == {t.name for s in servers for t in s.tools}
    for visible in plan.tools:
        assert visible.input_schema["type"] == "object"
        assert visible.input_schema["required"] == ["path"]
