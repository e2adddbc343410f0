"""Two workers behind HAProxy against one worker: CPU per call, and Redis commands per call.

Run from the repository root (nice'd: the machine may be shared):

    nice .venv/bin/python benchmarks/workers_cpu.py [--rounds 8] [--sessions 40] [--calls 20]
        [--redis redis://127.0.0.1:6379/11] [--no-docs]

Two setups run side by side for the whole run: one worker without Redis, as a team runs
one, and two workers sharing Redis behind Debian's HAProxy configured as docs/deploy.md says
(`load.py --workers 2 --proxy haproxy`), both with the same 16 client tokens (HAProxy
hashes on the token) and the timers a team runs with. Each round sends `benchmarks/load.py`'s
load (N SDK sessions at once, each making M sequential `echo` calls) in each protocol era to
one setup, then to the other (the order alternates: ABBA), so that both meet the same
machine, minute by minute, on a shared and noisy one. Measured per burst: the workers' own
CPU time per call (the worker processes alone: not the clients, HAProxy or the upstreams;
the setup at rest meanwhile is not counted); the ratio, two workers over one, per round and
era, and its median; and, as the figure the machine's load does not move, the commands the
two workers sent to Redis per call (Redis' MONITOR on the database of `--redis`, which
nothing else may use; a Lua script counts as one). Writes the `workers_cpu` section of
docs/benchmarks.md (`--no-docs` skips). Every process started here is stopped before exit.
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


def start_setup(name: str, args, stack: ExitStack) -> tuple:
    """The setup's workers (stopped by `stack`): (its live gateway, URL, worker pids, and
    the Redis command counter of two workers, else None)."""
    two = name != SETUPS[0]
    options = argparse.Namespace(
        workers=2 if two else 1,
        redis=args.redis if two else "",
        proxy="haproxy" if two else "round-robin",
        clients=CLIENTS,
    )
    tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="localrouter-workers-cpu-"))
    live, url, pids = load.start_workers(Path(tmp), options, stack)
    counter = stack.enter_context(redis_commands(args.redis)) if two else None
    return live, url, pids, counter


async def measure(started: dict, args) -> list[dict]:
    """The rounds: each era's burst on each setup, in ABBA order; per round, setup and era
    (EraResult, Redis commands sent during the burst)."""
    setups = {
        name: (await load.warmed_up_clients(live, url), pids, counter)
        for name, (live, url, pids, counter) in started.items()
    }
    rounds = []
    for number in range(args.rounds):
        measured: dict = {"load": f"{os.getloadavg()[0]:.1f}"}
        for name in SETUPS if number % 2 == 0 else SETUPS[::-1]:
            factory, pids, counter = setups[name]
            measured[name] = {}
            for era in load.ERAS:
                before = counter.counts() if counter else Counter()
                result = await load.measured_era(factory, pids, era, args.sessions, args.calls)
                sent = (counter.counts() if counter else Counter()) - before
                measured[name][era] = (result, sent)
        rounds.append(measured)
        print(rounds_table(rounds[-1:], first=len(rounds)), flush=True)  # progress
    return rounds


def cpu_ms(result) -> float:
    return 1000 * result.cpu_seconds / result.calls


def rounds_table(rounds: list[dict], first: int = 1) -> str:
    columns = ["round (load avg)", "era", "1 worker calls/s", "CPU ms/call"]
    columns += ["2 workers calls/s", "CPU ms/call", "CPU/call 2 vs 1"]
    rows = []
    for number, measured in enumerate(rounds, first):
        for era in load.ERAS:
            one, two = measured[SETUPS[0]][era][0], measured[SETUPS[1]][era][0]
            rows.append(
                [
                    f"{number} ({measured['load']})",
                    era,
                    f"{one.calls / one.seconds:,.0f}",
                    f"{cpu_ms(one):.2f}",
                    f"{two.calls / two.seconds:,.0f}",
                    f"{cpu_ms(two):.2f}",
                    f"{cpu_ms(two) / cpu_ms(one):.3f}x",
                ]
            )
    return _docs.markdown_table(columns, rows, "llrrrrr")


def ratios_line(rounds: list[dict]) -> str:
    parts = []
    for era in load.ERAS:
        ratios = sorted(cpu_ms(r[SETUPS[1]][era][0]) / cpu_ms(r[SETUPS[0]][era][0]) for r in rounds)
        parts.append(
            f"{era}: median {statistics.median(ratios):.3f}x "
            f"(lowest {ratios[0]:.3f}x, highest {ratios[-1]:.3f}x)"
        )
    return "Workers' CPU per call, two workers over one: " + "; ".join(parts) + "."


def commands_table(rounds: list[dict]) -> str:
    """Redis commands per call of the two workers, by command, over every pair."""
    per_era = {}
    for era in load.ERAS:
        commands: Counter[str] = Counter()
        calls = 0
        for measured in rounds:
            result, sent = measured[SETUPS[1]][era]
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
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/11",
        help="REDIS_URL of the two workers: a database nothing else uses (its commands "
        "are counted)",
    )
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    machine = _docs.machine()
    with gateway_databases_ready(), ExitStack() as stack:
        started = {name: start_setup(name, args, stack) for name in SETUPS}
        rounds = asyncio.run(measure(started, args))
    results = [r for measured in rounds for name in SETUPS for r, _ in measured[name].values()]
    report = "\n\n".join(
        [
            f"Machine: {machine}. Shared with other work (run under `nice`); each round's "
            "load average is the one at its start.",
            f"`benchmarks/workers_cpu.py --rounds {args.rounds} --sessions {args.sessions} "
            f"--calls {args.calls}`: one worker without Redis and two workers with Redis "
            f"behind HAProxy, {CLIENTS} client tokens each, side by side; each round sends "
            f"each era's {args.sessions} sessions x {args.calls} calls to one setup, then to "
            "the other (ABBA). CPU: the worker processes' own user+system time over the burst.",
            rounds_table(rounds),
            ratios_line(rounds),
            "Redis commands per call sent by the two workers (MONITOR; a Lua script is one "
            "command), over every round's bursts:",
            commands_table(rounds),
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
