"""Session start: time to a new session's first `tools/list` with slow and failing upstreams.

Run from the repository root:

    nice .venv/bin/python benchmarks/session_start.py [--runs 3]

Each scenario is one LocalRouter (daphne on a free 127.0.0.1 port, fresh data dir) with real
stdio upstreams: five SDK fixture servers (`tests/fixtures/servers/echo_server.py`), and
in the mixed scenarios one that never answers (`sleep 300`) and one that exits at once
(`fails_to_start.py`). Each run restarts daphne, so every upstream starts cold; a client
that uses no upstream warms the worker first (imports, database). Then one SDK client
(`mode="legacy"`) connects and lists its tools; the time from connecting to the listed
tools is the figure (handshake included). A second session then does the same.

The markdown table goes to stdout and into docs/benchmarks.md between the
`<!-- session_start:start -->` / `<!-- session_start:end -->` markers (`--no-docs` skips).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import benchmarks` must find the package
from benchmarks import _docs  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402  (sets Django up first)
from tests.e2e.live import (  # noqa: E402
    LiveGateway,
    start_daphne,
    start_gateway,
    stdio_upstream,
    stop_gateway,
)
from tests.fixtures.http_server import stop_process  # noqa: E402

SECTION = "session_start"
GOOD = [stdio_upstream(f"good{i}", "echo_server.py") for i in range(5)]
FAILING = [
    {"name": "hanging", "transport": "stdio", "command": "sleep", "args": ["300"]},
    stdio_upstream("crashing", "fails_to_start.py"),
]
CLIENTS = [
    {"name": "alice", "set": {"catalog_indexing_enabled": False}},
    {"name": "nobody", "upstreams": []},
]


@dataclass
class Scenario:
    label: str
    upstreams: list[dict]
    budget: str


@dataclass
class Row:
    scenario: Scenario
    first: list[float]
    second: list[float]
    tools: int


SCENARIOS = [
    Scenario("5 good (baseline)", GOOD, "2"),
    Scenario("5 good + hanging + crashing, budget 2 s (default)", GOOD + FAILING, "2"),
    Scenario("5 good + hanging + crashing, no budget (old behaviour)", GOOD + FAILING, "600"),
]


async def first_listing(live: LiveGateway, name: str) -> tuple[float, int]:
    started = time.monotonic()
    async with live.client(name) as client:
        tools = (await client.list_tools()).tools
    return time.monotonic() - started, len(tools)


async def one_run(live: LiveGateway) -> tuple[float, float, int]:
    await first_listing(live, "nobody")
    first, tools = await first_listing(live, "alice")
    second, _ = await first_listing(live, "alice")
    return first, second, tools


def measure(scenario: Scenario, runs: int, workdir: Path) -> Row:
    tmp = Path(tempfile.mkdtemp(prefix="session-start-", dir=workdir))
    live = start_gateway(
        tmp, scenario.upstreams, CLIENTS, LOCALROUTER_UPSTREAM_START_BUDGET=scenario.budget
    )
    row = Row(scenario, [], [], 0)
    try:
        for run in range(runs):
            if run:  # a fresh worker: every upstream starts cold again
                stop_process(live.process)
                live.process = start_daphne(live, urlsplit(live.url).port, live.log_path)
            first, second, row.tools = asyncio.run(one_run(live))
            row.first.append(first)
            row.second.append(second)
            print(
                f"{scenario.label}: run {run + 1}: {first:.2f} s, then {second:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    finally:
        stop_gateway(live)
    return row


def section(rows: list[Row], options: argparse.Namespace) -> str:
    baseline = statistics.median(rows[0].first)
    lines = [
        "## Session start",
        "",
        f"Run {_docs.machine()}, with `nice .venv/bin/python benchmarks/session_start.py "
        f"--runs {options.runs}`.",
        "",
        "| upstreams | first tools/list, median s | max s | vs baseline | "
        "next session, median s | tools listed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        first = statistics.median(row.first)
        lines.append(
            f"| {row.scenario.label} | {first:.2f} | {max(row.first):.2f} | "
            f"{first / baseline:.2f}x | {statistics.median(row.second):.2f} | {row.tools} |"
        )
    lines += [
        "",
        "Method: each run restarts daphne so every upstream starts cold, warms the worker with "
        "a client that uses no upstream, then times an SDK client from connecting to its "
        "first `tools/list` result (handshake included), then a second session. Target: the "
        "mixed scenario within the budget + 0.5 s. Upstreams not ready within the budget "
        "join later with `notifications/tools/list_changed` (the tools listed column counts "
        "what the first list held, IndexSearch/IndexRead not included when catalog "
        "indexing is off). Client, gateway and upstreams share this machine's CPUs.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts per scenario")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    options = parser.parse_args()
    with gateway_databases_ready(), tempfile.TemporaryDirectory(prefix="lr-bench-") as workdir:
        rows = [measure(s, options.runs, Path(workdir)) for s in SCENARIOS]
    text = section(rows, options)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
