"""Operations overhead: a small `echo` call through daphne, metrics, traces and limits on or off.

Run from the repository root:

    .venv/bin/python benchmarks/operations_overhead.py [--calls 1200] [--rounds 12] [--baseline REF]

Each configuration is its own LocalRouter worker under daphne (fresh data dir, one stdio
upstream `echo`, the SDK fixture `tests/fixtures/servers/echo_server.py`), all running at
once and measured in interleaved rounds (`gateway_overhead.measure_all`), so load from
elsewhere on the machine hits them alike:

* off:      nothing configured (the audit trail is on, as built; trace context is carried
            to the upstream, as always, with no span recorded);
* metrics:  `LOCALROUTER_METRICS_TOKEN` set (GET /metrics must answer with it);
* traces:   `OTEL_EXPORTER_OTLP_ENDPOINT` at an OTLP/HTTP receiver in this process
            (`tests/fixtures/otlp_receiver.py`): spans recorded and exported;
* limits:   the "off" worker, through a second client with `calls_per_minute`,
            `concurrent_calls` and `bytes_per_day` set high enough never to refuse
            (in memory: no `REDIS_URL`);
* all on:   metrics, traces and limits together;
* before:   with `--baseline REF`, the code of git REF (exported with `git archive`).

A configuration whose setting does not exist yet in this checkout is skipped with a note.
The table goes to stdout and into docs/benchmarks.md between the
`<!-- operations_overhead:start -->` / `<!-- operations_overhead:end -->` markers
(`--no-docs` skips). Every process started here is stopped before exit.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import benchmarks` must find the package
from benchmarks import _docs  # noqa: E402
from benchmarks.gateway_overhead import (  # noqa: E402
    LEGACY,
    PYTHON,
    Processes,
    Row,
    Target,
    export_baseline,
    fmt,
    http_client_factory,
    launch_localrouter,
    machine,
    measure_all,
    prepare_localrouter,
    run,
)
from tests.fixtures.otlp_receiver import OtlpReceiver, running_otlp_receiver  # noqa: E402

SECTION = "operations_overhead"
TARGET_SHARE = 0.05
"""The cost each feature may add to a small call's median."""
METRICS_TOKEN = "benchmark-metrics-token-0123456789"
# The largest values the limits take: counted and checked on every call, never reached.
LIMITS = {"calls_per_minute": 100_000, "concurrent_calls": 10_000, "bytes_per_day": 2**50}
OFF = "off"


@dataclass
class Setup:
    """One configuration to measure, or why it was skipped."""

    key: str
    name: str
    target: Target | None = None
    skipped: str = ""
    notes: list[str] = field(default_factory=list)


def start(procs: Processes, workdir: Path, options, key: str, source: Path = ROOT, **env: str):
    """A daphne worker for `key` with these environment variables: (base URL, token, pid, env)."""
    environment, token = prepare_localrouter(workdir, key, source, **env)
    process, port = launch_localrouter(procs, key, "daphne", environment, options, source)
    return f"http://127.0.0.1:{port}", token, process.pid, environment


def target(key: str, name: str, base: str, token: str, pid: int, mode: str) -> Target:
    headers = {"Authorization": f"Bearer {token}"}
    factory = http_client_factory(f"{base}/mcp", headers, mode)
    return Target(key, name, "echo__echo", factory, throughput=False, pids=(pid,))


async def metrics_served(base: str) -> str:
    """'' when GET /metrics answers with the token, else why not."""
    async with httpx2.AsyncClient() as http:
        answer = await http.get(
            f"{base}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
        )
    if answer.status_code == 200 and "localrouter_" in answer.text:
        return ""
    return f"LOCALROUTER_METRICS_TOKEN not served here yet (GET /metrics: {answer.status_code})"


def limited_client(environment: dict) -> tuple[str | None, str]:
    """A client with high limits on the same worker: (token, '') or (None, why not)."""
    settings = [arg for name, value in LIMITS.items() for arg in ("--set", f"{name}={value}")]
    try:
        created = run([PYTHON, "manage.py", "create_client", "limited", *settings], environment)
    except RuntimeError as error:
        reason = str(error).strip().splitlines()[-1][:160]
        return None, f"could not give a client limits here ({reason})"
    return created.strip().splitlines()[-1].strip(), ""


async def setups(procs, workdir: Path, options, receiver: OtlpReceiver, mode: str) -> list[Setup]:
    """Every configuration's worker for one protocol era, started; skipped ones say why."""
    traces = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    metrics = {"LOCALROUTER_METRICS_TOKEN": METRICS_TOKEN}
    found: list[Setup] = []

    def setup(key: str, name: str, base: str, token: str | None, pid: int, why: str = ""):
        key, name = f"{key}-{mode}", f"{name}, {mode}"
        chosen = Setup(key, name, skipped=why)
        if token is not None and not why:
            chosen.target = target(key, name, base, token, pid, mode)
        found.append(chosen)
        return chosen

    base, token, pid, environment = start(procs, workdir, options, f"off-{mode}")
    setup(OFF, "off", base, token, pid)
    limited, why = limited_client(environment)
    chosen = setup("limits", "limits", base, limited, pid, why)
    chosen.notes.append("the off worker, another client; limits kept in memory")

    base, token, pid, _ = start(procs, workdir, options, f"metrics-{mode}", **metrics)
    setup("metrics", "metrics", base, token, pid, await metrics_served(base))

    base, token, pid, _ = start(procs, workdir, options, f"traces-{mode}", **traces)
    setup("traces", "traces, exported over OTLP/HTTP", base, token, pid)

    base, token, pid, environment = start(
        procs, workdir, options, f"all-{mode}", **traces, **metrics
    )
    limited, _ = limited_client(environment)
    chosen = setup("all", "all on", base, limited or token, pid)
    if limited is None:
        chosen.notes.append("without limits")
    if await metrics_served(base):
        chosen.notes.append("without metrics")

    if options.baseline:
        source, commit = export_baseline(options.baseline, workdir)
        base, token, pid, _ = start(procs, workdir, options, f"before-{mode}", source=source)
        setup("before", f"before, {options.baseline} at {commit}", base, token, pid)
    return found


def table(rows: dict[str, Row], found: list[Setup], mode: str) -> str:
    off = rows.get(f"{OFF}-{mode}")
    columns = [
        "Configuration",
        "median ms",
        "p99 ms",
        "mean ms",
        "median vs off",
        "server CPU ms/call",
        "CPU vs off",
        "note",
    ]
    cells = []
    for setup in found:
        row = rows.get(setup.key)
        if row is None:
            cells.append([setup.name, *["n/a"] * 6, f"skipped: {setup.skipped}"])
            continue
        versus = versus_cpu = "-"
        if off is not None and row is not off:
            added = row.median_ms - off.median_ms
            versus = f"{added:+.3f} ms ({added / off.median_ms:+.1%})"
            if row.cpu_ms is not None and off.cpu_ms is not None:
                versus_cpu = f"{row.cpu_ms - off.cpu_ms:+.3f} ms"
        cells.append(
            [
                setup.name,
                fmt(row.median_ms, 3),
                fmt(row.p99_ms),
                fmt(row.mean_ms, 3),
                versus,
                fmt(row.cpu_ms, 3),
                versus_cpu,
                "; ".join(setup.notes),
            ]
        )
    return _docs.markdown_table(columns, cells, "lrrrrrrl")


def verdicts(rows: dict[str, Row], found: list[Setup], mode: str) -> list[str]:
    off = rows.get(f"{OFF}-{mode}")
    if off is None:
        return []
    out = []
    for setup in found:
        row = rows.get(setup.key)
        if row is None or row is off or setup.key.startswith("before-"):
            continue
        share = (row.median_ms - off.median_ms) / off.median_ms
        verdict = "meets" if share < TARGET_SHARE else "misses"
        out.append(
            f"- {setup.name}: **{share:+.1%}** of the median ({verdict} < {TARGET_SHARE:.0%})"
        )
    return out


async def propagation_cost(requests: int = 20_000) -> float:
    """Microseconds per request of carrying trace context with nothing recorded: the SDK's
    server middleware on the no-op tracer, the /mcp headers' scan and the call's facts,
    less a bare handler (in this process; no SDK tracer provider is installed here)."""
    from mcp.server.lowlevel import Server

    from gateway.operations.call_monitor import CallFacts
    from gateway.operations.spans import call_span
    from gateway.operations.tracing import continued_from_headers

    class Request:
        method, protocol_version, request_id = "tools/call", "2025-11-25", 7
        params = {"name": "echo__echo", "arguments": {"text": "x"}}
        meta = {"progressToken": 7}

    headers = [(b"authorization", b"Bearer x"), (b"content-type", b"application/json")]
    facts = CallFacts(
        kind="tool", client_id=1, client_name="b", session="s", upstream="echo", name="echo"
    )
    (middleware,) = Server("benchmark").middleware  # the SDK's default: its OpenTelemetry one

    async def handler(request) -> dict:
        return {"content": []}

    async def traced(request) -> dict:
        with continued_from_headers(headers), call_span(facts):
            return await middleware(request, handler)

    async def timed(serve) -> float:
        started = time.perf_counter()
        for _ in range(requests):
            await serve(Request)
        return time.perf_counter() - started

    bare, with_context = await timed(handler), await timed(traced)
    return (with_context - bare) / requests * 1e6


def section(results: str, options, spans: int, propagation_us: float) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = (
        f"--calls {options.calls} --rounds {options.rounds} --modes {','.join(options.modes)}"
        f"{f' --baseline {options.baseline}' if options.baseline else ''}"
    )
    return "\n".join(
        [
            "## Operations overhead (metrics, traces, limits)",
            "",
            f"Run {now} on {machine()} with "
            f"`.venv/bin/python benchmarks/operations_overhead.py {command}`.",
            "",
            results,
            "",
            f"Carrying the client's trace context with nothing recorded (in every row) costs "
            f"{propagation_us:.1f} µs a request here: the SDK's server middleware on the "
            "no-op tracer, the /mcp headers' scan and the call's facts, timed in the "
            "benchmark process against a bare handler. "
            f"The OTLP receiver got {spans:,} spans during the run. Method: the same `echo` "
            "call (short text) to the stdio fixture `tests/fixtures/servers/echo_server.py` "
            "through one daphne worker per configuration, by an SDK v2 `mcp.Client` in the "
            f"benchmark process; {options.calls} sequential calls on one open session per "
            f"configuration after {options.warmup} warm-up calls, interleaved over the "
            f"configurations in {options.rounds} rounds. Server CPU ms/call: user+system CPU "
            "time of the daphne process alone (not its upstream) over the sequential calls; "
            "a traces worker's includes its exporter thread. Off still carries the client's "
            "trace context to the upstream (the SDK's no-op tracer, no span recorded) and "
            "writes the audit trail. Client, gateway, upstream and receiver share this "
            "machine's CPUs.",
        ]
    )


async def main_async(options, procs: Processes, workdir: Path) -> str:
    with running_otlp_receiver() as receiver:
        print("starting the configurations ...", file=sys.stderr, flush=True)
        found: list[Setup] = []
        for mode in options.modes:
            (workdir / mode).mkdir()
            found += await setups(procs, workdir / mode, options, receiver, mode)
        for setup in found:
            if setup.skipped:
                print(f"  skipped {setup.name}: {setup.skipped}", file=sys.stderr)
        print("measuring ...", file=sys.stderr, flush=True)
        measured = await measure_all([s.target for s in found if s.target], options)
        procs.stop_all()  # the traces workers flush what they buffered as they stop
        spans = len(receiver.spans)
    rows = {row.key: row for row in measured}
    parts = []
    for mode in options.modes:
        ours = [s for s in found if s.key.endswith(f"-{mode}")]
        parts.append(table(rows, ours, mode) + "\n\n" + "\n".join(verdicts(rows, ours, mode)))
    results = "\n\n".join(parts)
    propagation_us = await propagation_cost()
    print(f"{results}\n\ntrace context, nothing recorded: {propagation_us:.1f} us a request")
    return section(results, options, spans, propagation_us)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1200, help="sequential calls per config")
    parser.add_argument("--warmup", type=int, default=50, help="warm-up calls before timing")
    parser.add_argument("--rounds", type=int, default=12, help="interleaved rounds")
    parser.add_argument(
        "--modes",
        default=LEGACY,
        type=lambda text: [x for x in text.split(",") if x],
        help="protocol eras of the client (legacy, 2026-07-28; comma-separated)",
    )
    parser.add_argument("--baseline", help="also measure the code of this git ref")
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    options = parser.parse_args()
    # measure_all's throughput part and launch_localrouter's profiling are not used here.
    options.repeat, options.sessions, options.per_session, options.profile = 0, 0, 0, None
    return options


def main() -> None:
    options = parse_args()
    with tempfile.TemporaryDirectory(prefix="operations-overhead-") as tmp:
        workdir = Path(tmp)
        procs = Processes(workdir)
        try:
            text = asyncio.run(main_async(options, procs, workdir))
        finally:
            procs.stop_all()
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
