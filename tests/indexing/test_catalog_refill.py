"""After deferral, tools are listed again while they fit: the client's used tools first."""

from indexing.api.catalog_budget import wire_size
from indexing.api.catalog_plan import plan_catalog
from indexing.api.catalog_shortening import shorten_tool
from tests.indexing.test_catalog_plan import FIXED, real_servers

THRESHOLD = 16_384


def listed(plan) -> set[str]:
    return {tool.name for tool in plan.tools}


def test_without_usage_the_plan_is_the_phases_alone():
    plan = plan_catalog(real_servers(), threshold=THRESHOLD, fixed_tools=FIXED)
    assert plan.kept == []


def test_a_deferred_catalog_lists_real_tools_again_when_they_fit():
    servers = real_servers()
    bare = plan_catalog(servers, threshold=THRESHOLD, fixed_tools=FIXED)
    plan = plan_catalog(servers, threshold=THRESHOLD, fixed_tools=FIXED, usage={})
    assert "defer-servers" in plan.phases
    assert len(plan.tools) > len(bare.tools) and plan.kept
    assert plan.bytes_after <= THRESHOLD
    everything = {t.name for s in servers for t in s.tools}
    assert listed(plan) | set(plan.deferred_tools) == everything
    assert not listed(plan) & set(plan.deferred_tools)


def test_a_tight_budget_still_lists_the_real_tools_that_fit():
    servers = real_servers()
    # A fixed budget goes stale as the captured catalogs grow: the index tools and the
    # `minimal` directory alone (one line per server) can outgrow it, and then no real tool
    # fits. So the budget is the floor (nothing but those) plus the few smallest tools.
    floor = plan_catalog(servers, threshold=0, fixed_tools=FIXED).bytes_after
    smallest = sorted(wire_size(shorten_tool(t)) + 1 for s in servers for t in s.tools)
    threshold = floor + sum(smallest[:3])
    plan = plan_catalog(servers, threshold=threshold, fixed_tools=FIXED, usage={})
    assert "minimal" in plan.phases
    assert plan.tools, "never only the two index tools when real tools fit"
    assert plan.bytes_after <= threshold


def test_the_tools_a_client_uses_are_listed_first():
    servers = real_servers()
    plan = plan_catalog(servers, threshold=THRESHOLD, fixed_tools=FIXED, usage={})
    deferred = sorted(plan.deferred_tools)
    favourites = {deferred[0]: 9.0, deferred[-1]: 2.5}
    used = plan_catalog(servers, threshold=THRESHOLD, fixed_tools=FIXED, usage=favourites)
    assert set(favourites) <= listed(used)
    assert used.bytes_after <= THRESHOLD
