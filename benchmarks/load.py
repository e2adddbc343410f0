"""Load: N sessions x M tool calls through LocalRouter, in both protocol eras.

Run from the repository root (nice'd: the machine may be shared):

    nice .venv/bin/python benchmarks/load.py [--sessions 100] [--calls 100]
        [--eras legacy,2026-07-28] [--workers 1] [--redis redis://127.0.0.1:6379/15]
        [--proxy round-robin|haproxy] [--clients K] [--idle 15] [--no-docs]

One daphne on a free 127.0.0.1 port (fresh data dir, one stdio upstream: the SDK fixture
`tests/fixtures/servers/echo_server.py`), or with `--workers K` and `--redis URL` K daphne
workers sharing Redis behind a per-request round-robin balancer (`_balancer.py`: each
request goes to the next worker, so most reach one that forwards them), or with `--proxy
haproxy` behind Debian's HAProxy configured as docs/deploy.md says (sessions routed to their
worker by id; 8 clients per worker, since the rest is hashed on the token). For each era,
all N sessions run at once, each an SDK `mcp.Client` making M sequential `echo` calls with a
text unique to the call; a reply with another text counts as mismatched. Counted: calls,
errors (exceptions and error results), mismatched replies, p50/p99 latency, calls/s, the
workers' own CPU time per call, and the workers' resident memory before the first era (after
one warm-up call), after the last, and after `--idle` seconds with every session closed.
Session records are written and the upstream list read again at the default intervals (10 s,
5 s), not the tests' 0.3 s. The
tables go to stdout and into docs/reliability.md between `<!-- load:start -->` / `<!--
load:end -->` (`load-K-workers` for K workers; `--no-docs` skips). Every process started
here is stopped before exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import math
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script: `benchmarks` and `tests` must be importable
from benchmarks import _docs  # noqa: E402
from benchmarks._balancer import per_request_balancer  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402  (sets Django up first)
from tests.e2e.live import LiveGateway, start_daphne, start_gateway, stdio_upstream  # noqa: E402
from tests.e2e.live import stop_gateway as stop_first  # noqa: E402
from tests.e2e.reverse_proxies import haproxy  # noqa: E402
from tests.fixtures.http_server import free_port, stop_process  # noqa: E402

RELIABILITY = ROOT / "docs" / "reliability.md"
SECTION = "load"
ERAS = ("legacy", "2026-07-28")
TOOL = "echo__echo"
# The timers a team runs with, not the tests' (tests/e2e/live.py writes session records
# and reads the upstream list every 0.3 s): work done per second, not per call, would
# weigh on the CPU per call as the run is slower.
PRODUCTION_TIMERS = {
    "LOCALROUTER_RECORD_FLUSH_SECONDS": "10",
    "LOCALROUTER_UPSTREAM_LIST_CACHE_SECONDS": "5",
}


@dataclass
class EraResult:
    """What one era's run counted."""

    era: str
    sessions: int
    calls_per_session: int
    calls: int = 0
    errors: int = 0
    mismatched: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the workers' own CPU time during the era

    def percentile(self, share: float) -> float:
        """Latency in milliseconds at `share` (0.5 for the median)."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[max(0, math.ceil(share * len(ordered)) - 1)]  # nearest rank


async def _session(
    client_factory, era: str, calls: int, tag: str, result: EraResult, tool: str
) -> None:
    try:
        async with client_factory(era) as client:
            for index in range(calls):
                text = f"{tag}-{index}"
                started = time.perf_counter()
                try:
                    reply = await client.call_tool(tool, {"text": text})
                except Exception:
                    result.calls += 1
                    result.errors += 1
                    continue
                result.latencies.append(time.perf_counter() - started)
                result.calls += 1
                if reply.is_error:
                    result.errors += 1
                elif reply.content[0].text != text:
                    result.mismatched += 1
    except Exception:
        result.errors += 1  # the session could not open or close


async def run_era(
    client_factory, era: str, sessions: int, calls: int, tool: str = TOOL
) -> EraResult:
    """N concurrent sessions of M calls each of `tool` through `client_factory(era)`."""
    result = EraResult(era, sessions, calls)
    started = time.perf_counter()
    await asyncio.gather(
        *(
            _session(client_factory, era, calls, f"{era}-{number}", result, tool)
            for number in range(sessions)
        )
    )
    result.seconds = time.perf_counter() - started
    return result


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time the processes have used so far (from /proc)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_mib(pids: list[int]) -> float:
    """Resident memory of the processes, MiB (from /proc)."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def results_table(results: list[EraResult]) -> str:
    columns = ["era", "sessions x calls", "calls", "errors", "mismatched", "p50 ms", "p99 ms"]
    columns += ["calls/s", "workers' CPU ms/call"]
    rows = [
        [
            r.era,
            f"{r.sessions} x {r.calls_per_session}",
            f"{r.calls:,}",
            str(r.errors),
            str(r.mismatched),
            f"{r.percentile(0.5):.1f}",
            f"{r.percentile(0.99):.1f}",
            f"{r.calls / r.seconds:,.0f}",
            f"{1000 * r.cpu_seconds / r.calls:.2f}",
        ]
        for r in results
    ]
    return _docs.markdown_table(columns, rows, "llrrrrrrr")


def memory_table(memory: dict[str, float], workers: int) -> str:
    before = memory["before"]
    columns = [f"workers' RSS ({workers} worker{'s' if workers > 1 else ''})", "MiB", "vs before"]
    rows = [[moment, f"{mib:.0f}", f"{mib / before:.2f}x"] for moment, mib in memory.items()]
    return _docs.markdown_table(columns, rows, "lrr")


def client_factory(url: str, live: LiveGateway, tokens: list[str]):
    """era -> an SDK client of that era at `url`, for each of `tokens` in turn."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    turns = itertools.cycle(tokens)

    @contextlib.asynccontextmanager
    async def factory(era: str):
        async with live.http(next(turns)) as http:  # the SDK leaves a client it is given open
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=era) as client:
                yield client

    return factory


async def warmed_up_clients(live: LiveGateway, url: str):
    """The client factory over every token, once each token's first call has started its
    worker's gateway and upstream."""
    factory = client_factory(url, live, list(live.tokens.values()))
    for _ in live.tokens:
        await run_era(factory, ERAS[0], 1, 1)
    return factory


async def measured_era(factory, pids: list[int], era: str, sessions: int, calls: int):
    """`run_era`, with the workers' CPU time over it."""
    used = cpu_seconds(pids)
    result = await run_era(factory, era, sessions, calls)
    result.cpu_seconds = cpu_seconds(pids) - used
    return result


async def measure(live: LiveGateway, url: str, pids: list[int], args) -> tuple[list, dict]:
    """Warm up, run every era, idle; the results and the memory readings."""
    factory = await warmed_up_clients(live, url)
    memory = {"before": rss_mib(pids)}
    results = [
        await measured_era(factory, pids, era, args.sessions, args.calls) for era in args.eras
    ]
    memory["after the load"] = rss_mib(pids)
    await asyncio.sleep(args.idle)
    memory[f"after {args.idle:g} s idle"] = rss_mib(pids)
    return results, memory


def start_workers(tmp: Path, args, stack: ExitStack) -> tuple[LiveGateway, str, list[int]]:
    """The workers (stopped by `stack`) and the URL the clients use: the worker itself, the
    per-request balancer, or HAProxy configured as docs/deploy.md says; and their pids."""
    routed = args.proxy == "haproxy"
    routes = [f"w{8001 + number}" for number in range(args.workers)]
    env = dict(PRODUCTION_TIMERS)
    if args.redis:
        env["REDIS_URL"] = args.redis
    if routed:
        env["LOCALROUTER_WORKER_ROUTE"] = routes[0]
    # Behind HAProxy, initialize and 2026-07-28 requests are hashed on the token: a team.
    count = args.clients or (8 * args.workers if routed else 1)
    clients = [{"name": f"load-{n}"} for n in range(count)]
    upstreams = [stdio_upstream("echo", "echo_server.py")]
    live = start_gateway(tmp, upstreams, clients, **env)
    stack.callback(stop_first, live)
    processes = [live.process]
    ports = {routes[0]: int(live.url.rsplit(":", 1)[1].split("/")[0])}
    for route in routes[1:]:
        worker = dataclasses.replace(live, env={**live.env, "LOCALROUTER_WORKER_ROUTE": route})
        ports[route] = free_port()
        extra = start_daphne(worker, ports[route], tmp / f"daphne-{route}.log")
        stack.callback(stop_process, extra)
        processes.append(extra)
    url = live.url
    if routed:
        url = stack.enter_context(haproxy(ports, tmp))
    elif args.workers > 1:
        balancer = per_request_balancer(list(ports.values()), free_port(), tmp / "balancer.log")
        url = f"{stack.enter_context(balancer)}/mcp"
    return live, url, [p.pid for p in processes]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--eras", type=lambda s: s.split(","), default=list(ERAS))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--redis", default="", help="REDIS_URL for several workers")
    parser.add_argument(
        "--proxy",
        choices=("round-robin", "haproxy"),
        default="round-robin",
        help="in front of several workers: per-request round robin (most requests are "
        "forwarded) or HAProxy routing by session as docs/deploy.md configures it",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=0,
        help="client tokens the sessions take in turn (default: 1, or 8 per worker behind "
        "HAProxy); give one worker as many to compare it with several",
    )
    parser.add_argument("--idle", type=float, default=15.0)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    machine = _docs.machine()  # its load average is the one before the run
    if args.workers > 1 and not args.redis:
        parser.error("--workers above 1 needs --redis")
    if args.proxy == "haproxy" and not 1 < args.workers < 4:
        parser.error("--proxy haproxy takes 2 or 3 workers (docs/deploy.md's example)")
    with (
        gateway_databases_ready(),
        tempfile.TemporaryDirectory(prefix="localrouter-load-") as tmp,
        ExitStack() as stack,
    ):
        live, url, pids = start_workers(Path(tmp), args, stack)
        results, memory = asyncio.run(measure(live, url, pids, args))
    report = "\n\n".join(
        [
            f"Machine: {machine}. Shared with other work (run under `nice`), so "
            "latencies are upper bounds.",
            f"`benchmarks/load.py --sessions {args.sessions} --calls {args.calls} "
            f"--workers {args.workers}"
            + (f" --proxy {args.proxy}" if args.workers > 1 else "")
            + (f" --clients {args.clients}" if args.clients else "")
            + "`: every era's sessions at once, each making sequential `echo` calls with a "
            "text unique to the call.",
            results_table(results),
            memory_table(memory, args.workers),
        ]
    )
    print(report)
    if not args.no_docs:
        section = SECTION if args.workers == 1 else f"{SECTION}-{args.workers}-workers"
        section += "-haproxy" if args.proxy == "haproxy" and args.workers > 1 else ""
        _docs.write_section(section, report, docs=RELIABILITY)
    if any(r.errors or r.mismatched for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
