"""Two workers behind HAProxy against one worker: CPU per call, and Redis commands per call.

Run from the repository root (nice'd: the machine may be shared):

    nice .venv/bin/python benchmarks/workers_cpu.py [--pairs 3] [--sessions 40] [--calls 50]
        [--redis redis://127.0.0.1:6379/11] [--no-docs]

Each pair runs `benchmarks/load.py`'s load (N SDK sessions at once, each making M sequential
`echo` calls, in each protocol era) twice, back to back, in alternating order: against one
worker without Redis, as a team runs one, and against two workers sharing Redis behind
Debian's HAProxy configured as docs/deploy.md says (`load.py --workers 2 --proxy haproxy`).
Both get the same 16 client tokens (HAProxy hashes on the token). Measured per era: the
workers' own CPU time per call (the worker processes alone: not the clients, HAProxy or the
upstreams) and its ratio, two workers over one, in each pair; and, as the figure the
machine's load does not move, the commands the two workers sent to Redis per call (Redis'
MONITOR on the database of `--redis`, which nothing else may use; a Lua script counts as
one). Writes the `workers_cpu` section of docs/benchmarks.md (`--no-docs` skips). Every
process started here is stopped before exit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script: `benchmarks` and `tests` must be importable
from benchmarks import _docs, load  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402
from benchmarks._redis_commands import redis_commands  # noqa: E402

SECTION = "workers_cpu"
CLIENTS = 16
SETUPS = ("1 worker", "2 workers + HAProxy")


async def _run_setup(url: str, live, pids: list[int], args, counter) -> dict:
    """era -> (EraResult, Redis commands sent during it) for the workers at `url`."""
    factory = await load.warmed_up_clients(live, url)
    measured = {}
    for era in load.ERAS:
        before = counter.counts() if counter else Counter()
        result = await load.measured_era(factory, pids, era, args.sessions, args.calls)
        after = counter.counts() if counter else Counter()
        measured[era] = (result, after - before)
    return measured


def run_setup(setup: str, args) -> dict:
    """Start the setup's workers, run both eras through them, stop them."""
    two = setup != SETUPS[0]
    options = argparse.Namespace(
        workers=2 if two else 1,
        redis=args.redis if two else "",
        proxy="haproxy" if two else "round-robin",
        clients=CLIENTS,
    )
    with (
        tempfile.TemporaryDirectory(prefix="localrouter-workers-cpu-") as tmp,
        ExitStack() as stack,
    ):
        live, url, pids = load.start_workers(Path(tmp), options, stack)
        counter = stack.enter_context(redis_commands(args.redis)) if two else None
        return asyncio.run(_run_setup(url, live, pids, args, counter))


def cpu_ms(result) -> float:
    return 1000 * result.cpu_seconds / result.calls


def pairs_table(pairs: list[dict], first: int = 1) -> str:
    columns = ["pair (load avg)", "era", "1 worker calls/s", "CPU ms/call"]
    columns += ["2 workers calls/s", "CPU ms/call", "CPU/call 2 vs 1"]
    rows = []
    for number, pair in enumerate(pairs, first):
        for era in load.ERAS:
            one, two = pair[SETUPS[0]][era][0], pair[SETUPS[1]][era][0]
            rows.append(
                [
                    f"{number} ({pair['load']})",
                    era,
                    f"{one.calls / one.seconds:,.0f}",
                    f"{cpu_ms(one):.2f}",
                    f"{two.calls / two.seconds:,.0f}",
                    f"{cpu_ms(two):.2f}",
                    f"{cpu_ms(two) / cpu_ms(one):.3f}x",
                ]
            )
    return _docs.markdown_table(columns, rows, "llrrrrr")


def ratios_line(pairs: list[dict]) -> str:
    parts = []
    for era in load.ERAS:
        ratios = sorted(cpu_ms(p[SETUPS[1]][era][0]) / cpu_ms(p[SETUPS[0]][era][0]) for p in pairs)
        parts.append(
            f"{era}: median {statistics.median(ratios):.3f}x "
            f"(lowest {ratios[0]:.3f}x, highest {ratios[-1]:.3f}x)"
        )
    return "Workers' CPU per call, two workers over one: " + "; ".join(parts) + "."


def commands_table(pairs: list[dict]) -> str:
    """Redis commands per call of the two workers, by command, over every pair."""
    per_era = {}
    for era in load.ERAS:
        commands: Counter[str] = Counter()
        calls = 0
        for pair in pairs:
            result, sent = pair[SETUPS[1]][era]
            commands += sent
            calls += result.calls
        per_era[era] = (commands, calls)
    names = sorted(set().union(*(c for c, _ in per_era.values())))
    rows = [
        [name] + [f"{per_era[era][0][name] / per_era[era][1]:.4f}" for era in load.ERAS]
        for name in names
    ]
    rows.append(["all"] + [f"{sum(c.values()) / calls:.4f}" for c, calls in per_era.values()])
    return _docs.markdown_table(["Redis command (2 workers)", *load.ERAS], rows, "lrr")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/11",
        help="REDIS_URL of the two workers: a database nothing else uses (its commands "
        "are counted)",
    )
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    machine = _docs.machine()
    pairs = []
    with gateway_databases_ready():
        for number in range(args.pairs):
            pair = {"load": f"{os.getloadavg()[0]:.1f}"}
            order = SETUPS if number % 2 == 0 else SETUPS[::-1]
            for setup in order:
                pair[setup] = run_setup(setup, args)
            pairs.append(pair)
            print(pairs_table(pairs[-1:], first=len(pairs)), flush=True)  # progress
    results = [r for p in pairs for s in SETUPS for r, _ in p[s].values()]
    report = "\n\n".join(
        [
            f"Machine: {machine}. Shared with other work (run under `nice`); the load "
            "average of each pair is the one at its start.",
            f"`benchmarks/workers_cpu.py --pairs {args.pairs} --sessions {args.sessions} "
            f"--calls {args.calls}`: each pair runs one worker without Redis and two "
            "workers with Redis behind HAProxy back to back (alternating which goes first), "
            f"{CLIENTS} client tokens each; {args.sessions} sessions x {args.calls} calls "
            "per era. CPU: the worker processes' own user+system time over the era.",
            pairs_table(pairs),
            ratios_line(pairs),
            "Redis commands per call sent by the two workers (MONITOR; a Lua script is one "
            "command), summed over the pairs' eras:",
            commands_table(pairs),
            f"Errors: {sum(r.errors for r in results)}; replies with another call's text: "
            f"{sum(r.mismatched for r in results)}.",
        ]
    )
    print(report)
    if not args.no_docs:
        _docs.write_section(SECTION, report)
    if any(r.errors or r.mismatched for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
