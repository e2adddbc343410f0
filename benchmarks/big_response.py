"""One huge response from a stdio upstream while other clients make small calls.

Run from the repository root (nice'd: the machine may be shared):

    nice .venv/bin/python benchmarks/big_response.py [--sizes 300,50] [--clients 4]
        [--idle 10] [--settle-limit 1800] [--section big-response] [--no-docs]

One daphne on a free 127.0.0.1 port (fresh data dir) with two stdio upstreams, both the SDK
fixture `tests/fixtures/servers/echo_server.py`: `bulk` answers the big call (`big_text`,
whose message holds its text twice, as content and as structured content, so a message of
S MB is a text of S/2 MB), `echo` the small ones. `--clients` sessions make sequential
`echo` calls for the whole run. For each size: an idle window of `--idle` seconds, then
one more session calls `bulk__big_text`; the window "during" lasts until that call has
returned and the worker is done with the message: the `bulk` process has exited (stopped
over the limit) or has written all of it (its /proc io counter), i.e. the worker has read
it all. Reported per size: the small calls' median and max latency idle and during (and
their ratio, same run), the big call's outcome and time, how long the worker went on
reading after the call returned, the worker's CPU seconds in the window, and its resident
memory before, at peak (VmHWM, reset before each size) and after.

The table goes to stdout and into docs/reliability.md between `<!-- SECTION:start -->` /
`<!-- SECTION:end -->` (`--no-docs` skips). Every process started here is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script: `benchmarks` and `tests` must be importable
from benchmarks import _docs  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402  (sets Django up first)
from tests.e2e.live import LiveGateway, running_gateway, stdio_upstream  # noqa: E402
from tests.fixtures.processes import child_pids  # noqa: E402

RELIABILITY = ROOT / "docs" / "reliability.md"
ROLE = "LOCALROUTER_BENCH_ROLE"
UPSTREAMS = [
    {**stdio_upstream("bulk", "echo_server.py"), "env": {ROLE: "bulk"}},
    stdio_upstream("echo", "echo_server.py"),
]
CLIENTS = [{"name": "small"}, {"name": "big"}]
POLL = 0.2


@dataclass
class Row:
    """What one size's run measured."""

    mb: int
    idle: list[float] = field(default_factory=list)
    during: list[float] = field(default_factory=list)
    small_errors: int = 0
    outcome: str = ""
    call_seconds: float = 0.0
    window_seconds: float = 0.0
    read_on_seconds: float = 0.0
    cpu_seconds: float = 0.0
    rss: dict[str, float] = field(default_factory=dict)


def proc_status(pid: int, key: str) -> float:
    """A `/proc/PID/status` figure in MiB (VmRSS, VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (USER_HZ)


def bulk_pid(worker: int) -> int | None:
    """The live `bulk` upstream process of the worker, if there is one."""
    for pid in child_pids(worker):
        try:
            if f"{ROLE}=bulk".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                return pid
        except OSError:
            continue
    return None


def written(pid: int) -> int | None:
    """Bytes `pid` has written (its /proc io wchar), or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


async def small_calls(live: LiveGateway, number: int, stop: asyncio.Event, row_of) -> None:
    """Sequential small calls until `stop`; each latency goes to the window it started in."""
    async with live.client("small") as client:
        call = 0
        while not stop.is_set():
            text = f"small {number}-{call}"
            started = time.perf_counter()
            window = row_of(started)
            try:
                reply = await client.call_tool("echo__echo", {"text": text})
                ok = not reply.is_error and reply.content[0].text == text
            except Exception:
                ok = False
            if window is not None:
                samples, row = window
                samples.append(time.perf_counter() - started)
                row.small_errors += not ok
            call += 1


async def big_call(live: LiveGateway, row: Row, worker: int, settle_limit: float) -> None:
    """The big call, then the wait until the worker has read the whole message."""
    message = row.mb * 1_000_000
    async with live.client("big") as client:
        started = time.perf_counter()
        try:
            result = await client.call_tool("bulk__big_text", {"size": message // 2})
            text = result.content[0].text if result.content else ""
            # An error's first clause, after the gateway's "Upstream 'bulk' ...:" prefix.
            reason = text.split(": ", 1)[-1].split(";", 1)[0][:120]
            row.outcome = (
                f"error: {reason}" if result.is_error else f"answered ({len(text):,} chars)"
            )
        except Exception as exc:
            row.outcome = f"client exception: {type(exc).__name__}: {str(exc)[:120]}"
        returned = time.perf_counter()
        row.call_seconds = returned - started
    pid = bulk_pid(worker)
    deadline = returned + settle_limit
    while pid is not None and time.perf_counter() < deadline:
        done = written(pid)
        if done is None or done >= message:
            break
        await asyncio.sleep(POLL)
    row.read_on_seconds = max(0.0, time.perf_counter() - returned)
    row.window_seconds = time.perf_counter() - started


async def measure(live: LiveGateway, args) -> list[Row]:
    worker = live.process.pid
    async with live.client("big") as client:  # starts the worker and both upstreams
        await client.call_tool("echo__echo", {"text": "warm"})
        await client.call_tool("bulk__echo", {"text": "warm"})
    current: list = [None]  # (samples, row) of the window now open, or None
    stop = asyncio.Event()
    clients = [
        asyncio.create_task(small_calls(live, n, stop, lambda _t: current[0]))
        for n in range(args.clients)
    ]
    await asyncio.sleep(2)  # the small sessions start
    rows = []
    for mb in args.sizes:
        row = Row(mb)
        rows.append(row)
        current[0] = (row.idle, row)
        await asyncio.sleep(args.idle)
        row.rss["before"] = proc_status(worker, "VmRSS")
        with contextlib.suppress(OSError):
            Path(f"/proc/{worker}/clear_refs").write_text("5")  # VmHWM := VmRSS
        cpu = cpu_seconds(worker)
        current[0] = (row.during, row)
        await big_call(live, row, worker, args.settle_limit)
        current[0] = None
        row.cpu_seconds = cpu_seconds(worker) - cpu
        row.rss["peak"] = proc_status(worker, "VmHWM")
        row.rss["after"] = proc_status(worker, "VmRSS")
    stop.set()
    await asyncio.gather(*clients)
    return rows


def _ms(values: list[float], pick) -> str:
    return f"{1000 * pick(values):,.0f}" if values else "-"


def table(rows: list[Row]) -> str:
    columns = [
        "message",
        "small calls idle: n, median / max ms",
        "during: n, median / max ms",
        "median, max vs idle median",
        "small errors",
        "big call",
        "worker read on after it",
        "worker CPU s",
        "RSS MiB before / peak / after",
    ]
    lines = []
    for row in rows:
        idle = statistics.median(row.idle) if row.idle else float("nan")
        during = row.during or [float("nan")]
        lines.append(
            [
                f"{row.mb} MB",
                f"{len(row.idle)}: {_ms(row.idle, statistics.median)} / {_ms(row.idle, max)}",
                f"{len(row.during)}: {_ms(row.during, statistics.median)} / {_ms(row.during, max)}",
                f"{statistics.median(during) / idle:.2f}x, {max(during) / idle:.1f}x",
                str(row.small_errors),
                f"{row.outcome} ({row.call_seconds:.1f} s)",
                f"{row.read_on_seconds:.1f} s",
                f"{row.cpu_seconds:.1f}",
                " / ".join(f"{row.rss[k]:,.0f}" for k in ("before", "peak", "after")),
            ]
        )
    return _docs.markdown_table(columns, lines, "lllrrlrrl")


def code_version() -> str:
    """The checkout's commit, and whether it has uncommitted changes."""

    def run(*command: str) -> str:
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout.strip()

    changed = run("git", "status", "--porcelain", "--untracked-files=no")
    dirty = " with uncommitted changes" if changed else ""
    return f"commit {run('git', 'rev-parse', '--short', 'HEAD')}{dirty}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[300])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--settle-limit", type=float, default=1800.0)
    parser.add_argument("--section", default="big-response")
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    machine = _docs.machine()
    with (
        tempfile.TemporaryDirectory(prefix="localrouter-big-") as tmp,
        gateway_databases_ready(),
        running_gateway(Path(tmp), UPSTREAMS, CLIENTS) as live,
    ):
        rows = asyncio.run(measure(live, args))
    report = "\n\n".join(
        [
            f"Machine: {machine}. Shared with other work (run under `nice`), so latencies "
            "are upper bounds.",
            f"`benchmarks/big_response.py --sizes {','.join(map(str, args.sizes))} "
            f"--clients {args.clients} --idle {args.idle:g}` on {code_version()}: "
            f"{args.clients} sessions make sequential `echo` calls to one stdio upstream while "
            "another session calls a tool of a second one whose answer is one message of the "
            "size given.",
            table(rows),
        ]
    )
    print(report)
    if not args.no_docs:
        _docs.write_section(args.section, report, docs=RELIABILITY)


if __name__ == "__main__":
    main()
