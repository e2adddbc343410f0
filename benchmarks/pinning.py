"""Guardrails cost: checking a listing against its pinned definitions, and the tool policy.

Run from the repository root:

    .venv/bin/python benchmarks/pinning.py [--repeat 20] [--no-docs]

The catalogs are the 40 real servers' listings in tests/fixtures/catalogs/ (their tools as
those servers list them), checked as one upstream of all their tools and as each server on
its own, in a fresh SQLite database (a temporary LOCALROUTER_DATA_DIR, migrated here):

* first sight: every definition digested and pinned (one bulk insert);
* re-check:    a listing read again, nothing changed (what every later read costs);
* one changed: one description rewritten (held, its new definition stored, audited).

The tool policy's decision is timed per call for a 20-line policy over every tool name.
The table goes to stdout and into docs/benchmarks.md between the `<!-- pinning:start -->`
/ `<!-- pinning:end -->` markers (`--no-docs` skips).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["LOCALROUTER_DATA_DIR"] = tempfile.mkdtemp(prefix="pinning-bench-")
os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")

import django  # noqa: E402

django.setup()

import mcp_types as types  # noqa: E402
from django.core.management import call_command  # noqa: E402

from benchmarks._docs import machine, markdown_table, write_section  # noqa: E402
from clients.tool_policy import ToolPolicy  # noqa: E402
from gateway.catalog.upstream_listing import UpstreamListing  # noqa: E402
from gateway.guardrails.models import DefinitionPin  # noqa: E402
from gateway.guardrails.pinning import held_items, seen_items  # noqa: E402
from gateway.models import Upstream  # noqa: E402
from gateway.upstreams import UpstreamSpec  # noqa: E402

CATALOGS = ROOT / "tests" / "fixtures" / "catalogs"


def catalog_tools() -> dict[str, list[types.Tool]]:
    """server -> its tools, from the captured real catalogs."""
    servers = {}
    for path in sorted(CATALOGS.glob("*.json")):
        listed = json.loads(path.read_text()).get("tools") or []
        servers[path.stem] = [types.Tool.model_validate(tool) for tool in listed]
    return servers


def check(name: str, tools: list[types.Tool]) -> float:
    """Seconds to digest a listing and check it against the pins (writing what it learns)."""
    spec = UpstreamSpec(name=name, transport="stdio", command="x")
    begun = time.perf_counter()
    held_items(name, seen_items(UpstreamListing(spec=spec, tools=tools)))
    return time.perf_counter() - begun


def measure(name: str, tools: list[types.Tool], repeat: int) -> dict[str, float]:
    """Median milliseconds of first sight, re-check and one changed tool."""
    firsts, rechecks, changes = [], [], []
    changed = [tools[0].model_copy(update={"description": "rewritten"}), *tools[1:]]
    for _ in range(repeat):
        Upstream.objects.filter(name=name).delete()
        Upstream.objects.create(name=name, command="x")
        firsts.append(check(name, tools))
        rechecks.append(check(name, tools))
        changes.append(check(name, changed))
    return {
        "first": statistics.median(firsts) * 1000,
        "recheck": statistics.median(rechecks) * 1000,
        "changed": statistics.median(changes) * 1000,
    }


def policy_ns(names: list[str], rounds: int = 20) -> float:
    """Nanoseconds per decision of a 20-line policy (cached per name, as in the gateway)."""
    rules = "\n".join(f"server{n}__delete_* deny\nserver{n}__* ask" for n in range(10))
    policy = ToolPolicy.from_text(rules)
    begun = time.perf_counter()
    for _ in range(rounds):
        for name in names:
            policy.decision(name)
    return (time.perf_counter() - begun) / (rounds * len(names)) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    servers = catalog_tools()
    every = [
        tool.model_copy(update={"name": f"{server}_{tool.name}"})
        for server, tools in servers.items()
        for tool in tools
    ]
    largest = max(servers, key=lambda server: len(servers[server]))
    rows = []
    for label, name, tools in [
        (f"all 40 servers as one upstream ({len(every)} tools)", "all", every),
        (f"largest server, {largest} ({len(servers[largest])} tools)", largest, servers[largest]),
    ]:
        ms = measure(name, tools, args.repeat)
        rows.append([label, *(f"{ms[key]:.1f}" for key in ("first", "recheck", "changed"))])
    per_server = [measure(server, tools, 3)["recheck"] for server, tools in servers.items()]
    rows.append(
        [
            "each of the 40 servers (median of their medians)",
            "-",
            f"{statistics.median(per_server):.1f}",
            "-",
        ]
    )
    names = [f"server{n % 12}__{tool.name}" for n, tool in enumerate(every)]
    decision = policy_ns(names)
    table = markdown_table(
        ["Listing", "first sight ms", "re-check ms", "one changed ms"], rows, "lrrr"
    )
    text = (
        "## Guardrails: pinned definitions and tool policy\n\n"
        f"Run {machine()} with `.venv/bin/python benchmarks/pinning.py --repeat {args.repeat}`."
        "\n\n"
        f"{table}\n\n"
        f"Tool policy: {decision:,.0f} ns per call's decision (20 rules, {len(names)} tool "
        "names, cached per name as in the gateway).\n\n"
        "A listing is checked once per read of an upstream (first need, `list_changed`, a "
        "held listing read again), never per call; calls pay only the policy's decision. "
        "Method: the captured listings of tests/fixtures/catalogs/, digested (SHA-256 of "
        "canonical JSON) and checked against the pins in a fresh SQLite database, medians "
        f"of {args.repeat} runs (3 for each server)."
    )
    print(text)
    count = DefinitionPin.objects.count()
    print(f"\n({count} pins in the benchmark's database)")
    if not args.no_docs:
        write_section("pinning", text)


if __name__ == "__main__":
    main()
