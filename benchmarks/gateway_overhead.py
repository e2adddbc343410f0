"""Gateway overhead: one small `echo` tool call, direct vs. through LocalRouter vs. mcp-proxy.

Run from the repository root:

    .venv/bin/python benchmarks/gateway_overhead.py [--calls 300] [--sessions 20] [--per-session 50]

Every target serves the same upstream, the SDK fixture `tests/fixtures/servers/echo_server.py`:

* direct (HTTP):  the fixture itself with `--http` on a free 127.0.0.1 port;
* direct (stdio): the fixture as a child process of the benchmark (latency only);
* LocalRouter:    one worker under each HTTP server (`--servers`, default daphne and uvicorn),
                  fresh data dir, one stdio upstream `echo`; reached in both protocol eras
                  (`--modes`: legacy, the initialize handshake, and 2026-07-28, stateless);
* two workers:    the same under `--workers-server` (uvicorn) with `REDIS_URL`, behind a
                  per-request round-robin balancer (`benchmarks/_balancer.py`) that counts
                  the requests reaching another worker than the session's owner;
* baseline:       with `--baseline REF`, LocalRouter as of git REF (exported with
                  `git archive` into the temp dir) next to the current code, for before/after;
* mcp-proxy:      PyPI `mcp-proxy` 0.13 (SDK v1, in its own venv, var/mcp-proxy-venv, made on
                  first use) serving the stdio fixture over Streamable HTTP on 127.0.0.1.

All targets run at once and are measured in interleaved rounds, so load from elsewhere on the
machine hits them alike. For each: median and p99 of N sequential calls on one session (after a
warm-up), and calls/s with S concurrent sessions (each its own `mcp.Client`, each doing K calls;
total wall time; best of `--repeat` runs, since other load on the machine only ever lowers it).
The client is the SDK v2 `mcp.Client`, in this process.
CPU per call is the user+system CPU time of the server process(es) alone (not the upstream
child) over the sequential calls, divided by their number.

The markdown table goes to stdout and into docs/benchmarks.md between the
`<!-- gateway_overhead:start -->` / `<!-- gateway_overhead:end -->` markers (`--no-docs` skips).
Every process started here is stopped before exit (terminate, wait, then kill leftovers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import functools
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import redis
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT_DIR = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT_DIR)]  # run as a script, `import benchmarks` must find the package
from benchmarks import _docs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python")
FIXTURE = str(ROOT / "tests" / "fixtures" / "servers" / "echo_server.py")
DOCS = ROOT / "docs" / "benchmarks.md"
SECTION = "gateway_overhead"
MCP_PROXY_SPEC = "mcp-proxy==0.13.*"
MCP_PROXY_VENV = ROOT / "var" / "mcp-proxy-venv"  # created on first use
TEXT = "hello, gateway"
TARGET_ADDED_MS = 3.0
LEGACY, MODERN = "legacy", "2026-07-28"  # the SDK client's modes: handshake era, stateless era
SERVERS = ("daphne", "uvicorn")
BALANCER = ROOT / "benchmarks" / "_balancer.py"
LOAD_AT_START = os.getloadavg()[0]

ClientFactory = Callable[[], contextlib.AbstractAsyncContextManager[Client]]
Meter = Callable[[], list[float]]  # readings (CPU seconds) whose growth a run counts


# --------------------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited early; see {log}:\n{tail(log)}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s; see {log}")


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (the SDK starts stdio upstreams in their own session)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Processes:
    """Processes started by the benchmark; `stop_all` ends them and whatever they started."""

    def __init__(self, logdir: Path) -> None:
        self.logdir = logdir
        self.started: list[tuple[subprocess.Popen, Any]] = []

    def start(
        self, name: str, args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT
    ):
        log = self.logdir / f"{name}.log"
        handle = open(log, "wb")  # noqa: SIM115 - closed in stop_all
        process = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.started.append((process, handle))
        return process, log

    def stop(self, process: subprocess.Popen) -> None:
        below = descendants(process.pid)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        leftovers = [pid for pid in below if alive(pid)]
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        while leftovers and time.monotonic() < deadline:
            leftovers = [pid for pid in leftovers if alive(pid)]
            time.sleep(0.05)
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for process, handle in reversed(self.started):
            try:
                self.stop(process)
            finally:
                handle.close()
        self.started.clear()


def run(
    args: list[str], env: dict[str, str] | None = None, timeout: float = 300, cwd: Path = ROOT
) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


# --------------------------------------------------------------------------- clients


def http_client_factory(
    url: str, headers: dict[str, str] | None = None, mode: str = LEGACY
) -> ClientFactory:
    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[Client]:
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with httpx2.AsyncClient(headers=headers or {}, timeout=timeout) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode) as client:
                yield client

    return factory


def stdio_client_factory() -> ClientFactory:
    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[Client]:
        params = StdioServerParameters(command=PYTHON, args=[FIXTURE])
        async with Client(params, mode="legacy") as client:
            yield client

    return factory


async def echo(client: Client, tool: str) -> None:
    result = await client.call_tool(tool, {"text": TEXT})
    text = getattr(result.content[0], "text", None) if result.content else None
    if result.is_error or text != TEXT:
        raise RuntimeError(f"{tool}: unexpected result {result!r}")


# --------------------------------------------------------------------------- measurement


@dataclass
class Row:
    key: str
    name: str
    median_ms: float | None = None
    p99_ms: float | None = None
    mean_ms: float | None = None
    calls_per_s: float | None = None
    cpu_ms: float | None = None
    concurrent_cpu_ms: float | None = None  # the server's, over every concurrent run
    client_cpu_ms: float | None = None  # this process's (the SDK clients'), likewise
    upstream_cpu_ms: float | None = None  # the server's upstream children's, likewise
    busy_share: float | None = None  # of the machine's CPU time, during the concurrent runs
    note: str = ""
    tallies: dict[str, dict] | None = None  # the balancer's, by phase (two workers only)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (not its children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, all) CPU time of the whole machine so far, from /proc/stat."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def concurrent(
    factory: ClientFactory, tool: str, sessions: int, per_session: int, meter: Meter
) -> tuple[float, list[float]]:
    """Calls/s of `sessions` clients, each doing `per_session` calls, all started together,
    and what `meter` counted meanwhile (the readings' differences).

    Each session lives in its own task (SDK contexts must exit in the task that entered them);
    the clock runs from the common start signal to the last session's last answer.
    """
    ready: list[asyncio.Event] = [asyncio.Event() for _ in range(sessions)]
    go = asyncio.Event()
    finished: list[float] = []
    readings: list[list[float]] = []

    async def session(index: int) -> None:
        async with factory() as client:
            await echo(client, tool)  # connected and warm
            ready[index].set()
            await go.wait()
            for _ in range(per_session):
                await echo(client, tool)
            finished.append(time.perf_counter())
            if len(finished) == sessions:
                readings.append(meter())

    tasks = [asyncio.create_task(session(i)) for i in range(sessions)]
    try:
        while not all(event.is_set() for event in ready):
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.01)
        readings.append(meter())
        start = time.perf_counter()
        go.set()
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    counted = [after - before for before, after in zip(*readings, strict=True)]
    return sessions * per_session / (max(finished) - start), counted


@dataclass
class Target:
    """One way of reaching the fixture's `echo` tool."""

    key: str
    name: str
    tool: str
    factory: ClientFactory
    throughput: bool = True
    note: str = ""
    pids: tuple[int, ...] = ()  # the server process(es), for their CPU time per call
    balancer: str | None = None  # the round-robin balancer's URL, for its tally


def cpu_of(pids: tuple[int, ...]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def cpu_readings(servers: tuple[int, ...], upstreams: tuple[int, ...]) -> list[float]:
    """CPU seconds so far: the servers', this process's (the clients'), the upstreams', and
    the machine's busy and total time."""
    return [cpu_of(servers), time.process_time(), cpu_of(upstreams), *machine_cpu_seconds()]


def upstreams_of(pids: tuple[int, ...]) -> tuple[int, ...]:
    """The processes the servers started (stdio upstreams), once they are running."""
    return tuple(child for pid in pids for child in descendants(pid))


async def balancer_tally(url: str | None, *, restart: bool) -> dict | None:
    """The balancer's tally so far; with `restart`, a fresh one begins counting."""
    if url is None:
        return None
    async with httpx2.AsyncClient() as http:
        tally = (await http.get(f"{url}/balancer/tally")).json()
        if restart:
            await http.post(f"{url}/balancer/reset?recording=1")
    return tally


async def measure_all(targets: list[Target], options: argparse.Namespace) -> list[Row]:
    """Interleave the targets so that load from elsewhere on the machine hits them alike.

    Latency: one open session per target; `--rounds` rounds, each doing its share of the
    `--calls` sequential calls on every target in turn. Throughput: `--repeat` rounds of the
    concurrent run on every target in turn; the best run counts.
    """
    samples: dict[str, list[float]] = {t.key: [] for t in targets}
    cpu: dict[str, float] = {t.key: 0.0 for t in targets}
    tallies: dict[str, dict[str, dict]] = {t.key: {} for t in targets}
    per_round = max(1, options.calls // options.rounds)
    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for t in targets:
            clients[t.key] = await stack.enter_async_context(t.factory())
            for _ in range(options.warmup):
                await echo(clients[t.key], t.tool)
            await balancer_tally(t.balancer, restart=True)
        print(
            f"  latency: {options.rounds} rounds x {per_round} sequential calls per target",
            file=sys.stderr,
            flush=True,
        )
        for _ in range(options.rounds):
            for t in targets:
                client, series = clients[t.key], samples[t.key]
                cpu_before = cpu_of(t.pids)
                for _ in range(per_round):
                    start = time.perf_counter()
                    await echo(client, t.tool)
                    series.append((time.perf_counter() - start) * 1000)
                cpu[t.key] += cpu_of(t.pids) - cpu_before
    for t in targets:
        if t.balancer:
            tallies[t.key]["latency"] = await balancer_tally(t.balancer, restart=True)
    runs: dict[str, list[float]] = {t.key: [] for t in targets if t.throughput}
    concurrent_cpu = {t.key: 0.0 for t in targets}
    client_cpu = {t.key: 0.0 for t in targets}
    upstream_cpu = {t.key: 0.0 for t in targets}
    busy = {t.key: [0.0, 0.0] for t in targets}  # machine busy and all CPU seconds
    upstreams = {t.key: upstreams_of(t.pids) for t in targets}
    for i in range(options.repeat):
        print(
            f"  throughput run {i + 1}/{options.repeat}: {options.sessions} sessions x "
            f"{options.per_session} calls per target",
            file=sys.stderr,
            flush=True,
        )
        for t in targets:
            if t.throughput:
                meter = functools.partial(cpu_readings, t.pids, upstreams[t.key])
                rate, (server, client, upstream, *machine) = await concurrent(
                    t.factory, t.tool, options.sessions, options.per_session, meter
                )
                runs[t.key].append(rate)
                concurrent_cpu[t.key] += server
                client_cpu[t.key] += client
                upstream_cpu[t.key] += upstream
                busy[t.key][0] += machine[0]
                busy[t.key][1] += machine[1]
    for t in targets:
        if t.balancer:
            tallies[t.key]["throughput"] = await balancer_tally(t.balancer, restart=False)
    rows = []
    for t in targets:
        series = samples[t.key]
        row = Row(
            t.key,
            t.name,
            statistics.median(series),
            percentile(series, 0.99),
            statistics.fmean(series),
            note=t.note,
        )
        if t.pids:
            row.cpu_ms = cpu[t.key] * 1000 / len(series)
        row.tallies = tallies[t.key] or None
        if t.throughput:
            row.calls_per_s = max(runs[t.key])
            calls = options.repeat * options.sessions * options.per_session
            row.concurrent_cpu_ms = concurrent_cpu[t.key] * 1000 / calls if t.pids else None
            row.client_cpu_ms = client_cpu[t.key] * 1000 / calls
            if upstreams[t.key]:
                row.upstream_cpu_ms = upstream_cpu[t.key] * 1000 / calls
            row.busy_share = ratio(*busy[t.key])
            rates = ", ".join(f"{r:.0f}" for r in runs[t.key])
            print(f"  {t.name}: calls/s per run {rates}", file=sys.stderr)
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- targets


async def start_direct(procs: Processes, options: argparse.Namespace) -> list[Target]:
    port = free_port()
    process, log = procs.start("direct-http", [PYTHON, FIXTURE, "--http", "--port", str(port)])
    wait_for_port(port, process, log)
    targets = [
        Target(
            "direct-http",
            "direct, Streamable HTTP",
            "echo",
            http_client_factory(f"http://127.0.0.1:{port}/mcp"),
            pids=(process.pid,),
        )
    ]
    if not options.skip_stdio:
        targets.append(
            Target(
                "direct-stdio",
                "direct, stdio",
                "echo",
                stdio_client_factory(),
                throughput=False,
                note="latency only: each stdio session has its own server process",
            )
        )
    return targets


def localrouter_env(data_dir: Path) -> dict[str, str]:
    """A LocalRouter process's environment: this data dir, SQLite, no Redis, no .env leaks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALROUTER_")}
    env.update(
        LOCALROUTER_DATA_DIR=str(data_dir),
        DATABASE_URL="",  # set but empty: a .env file cannot point the run at a real database
        REDIS_URL="",
        DEBUG="false",
        DJANGO_SETTINGS_MODULE="localrouter.settings",
        PYTHONUNBUFFERED="1",
        # Steady-state calls are measured: every session's catalog has the upstream, even
        # when a loaded machine starts it slowly.
        LOCALROUTER_UPSTREAM_START_BUDGET="60",
    )
    return env


def prepare_localrouter(workdir: Path, key: str, source: Path, **env: str) -> tuple[dict, str]:
    """A fresh data dir for `key` with the `echo` upstream and one client: (env, its token)."""
    environment = {**localrouter_env(workdir / f"{key}-data"), **env}
    manage = [PYTHON, "manage.py"]
    run([*manage, "migrate", "--no-input"], environment, cwd=source)
    servers = workdir / "mcp_servers.json"
    servers.write_text(json.dumps({"mcpServers": {"echo": {"command": PYTHON, "args": [FIXTURE]}}}))
    run([*manage, "import_mcp_servers", str(servers)], environment, cwd=source)
    created = run([*manage, "create_client", "bench"], environment, cwd=source)
    return environment, created.strip().splitlines()[-1].strip()


def launch_localrouter(
    procs: Processes,
    name: str,
    server: str,
    env: dict,
    options: argparse.Namespace,
    source: Path = ROOT,
) -> tuple[subprocess.Popen, int]:
    """One LocalRouter worker under `server` (daphne or uvicorn) on a free port, started as
    `make serve` starts it (`manage.py serve`)."""
    port = free_port()
    env = {**env, "LOCALROUTER_SERVER": server}
    serve = ["manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    args = [PYTHON, *serve]
    if options.profile:  # cProfile writes NAME.prof as the worker exits (SIGTERM)
        profile = Path(options.profile).resolve() / f"{name}.prof"
        args = [PYTHON, "-m", "cProfile", "-o", str(profile), *serve]
    process, log = procs.start(name, args, env, cwd=source)
    wait_for_port(port, process, log)
    return process, port


def localrouter_targets(
    key: str, label: str, url: str, token: str, pids: tuple[int, ...], modes: list[str], **extra
) -> list[Target]:
    """One target per protocol era, all reaching the same LocalRouter."""
    return [
        Target(
            f"{key}-{mode}",
            f"LocalRouter{label}, {mode}",
            "echo__echo",
            http_client_factory(url, {"Authorization": f"Bearer {token}"}, mode),
            pids=pids,
            **extra,
        )
        for mode in modes
    ]


async def start_localrouter(
    procs: Processes,
    workdir: Path,
    options: argparse.Namespace,
    server: str,
    *,
    source: Path = ROOT,
    key: str = "",
    label: str = "",
    modes: list[str] | None = None,
) -> list[Target]:
    """LocalRouter under `server`, running the code in `source` (this checkout by default)."""
    key = key or f"localrouter-{server}"
    env, token = prepare_localrouter(workdir, key, source)
    process, port = launch_localrouter(procs, key, server, env, options, source)
    url = f"http://127.0.0.1:{port}/mcp"
    label = f"{label} ({server}, stdio upstream)"
    return localrouter_targets(key, label, url, token, (process.pid,), modes or options.modes)


async def start_two_workers(
    procs: Processes, workdir: Path, options: argparse.Namespace
) -> list[Target]:
    """Two LocalRouter workers sharing a database and Redis, behind the round-robin balancer
    (`benchmarks/_balancer.py`, its own process)."""
    key, server = "two-workers", options.workers_server
    # Owners of sessions and clients are kept in Redis; a previous run's would point at
    # workers long gone (the client ids of a fresh database are the same every run).
    redis.Redis.from_url(options.redis_url).flushdb()
    env, token = prepare_localrouter(workdir, key, ROOT, REDIS_URL=options.redis_url)
    workers = [launch_localrouter(procs, f"{key}-{i}", server, env, options) for i in range(2)]
    label = f", 2 {server} workers + Redis behind round robin"
    pids = tuple(process.pid for process, _ in workers)
    targets = []
    for mode in options.modes:  # a balancer each, so that each era has its own tally
        port = free_port()
        args = [PYTHON, str(BALANCER), "--port", str(port), *(str(p) for _, p in workers)]
        balancer, log = procs.start(f"balancer-{mode}", args)
        wait_for_port(port, balancer, log)
        base = f"http://127.0.0.1:{port}"
        targets += localrouter_targets(
            key, label, f"{base}/mcp", token, pids, [mode], balancer=base
        )
    return targets


def export_baseline(ref: str, workdir: Path) -> tuple[Path, str]:
    """The tree of git `ref` unpacked under `workdir` (no worktree is created), and its commit."""
    commit = run(["git", "rev-parse", "--short", f"{ref}^{{commit}}"]).strip()
    target = workdir / "baseline-src"
    target.mkdir()
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target, commit


def ensure_mcp_proxy(venv: Path) -> Path:
    exe = venv / "bin" / "mcp-proxy"
    if exe.exists():
        return exe
    print(f"  creating {venv} with {MCP_PROXY_SPEC} ...", file=sys.stderr, flush=True)
    base = getattr(sys, "_base_executable", sys.executable)  # this venv's own interpreter
    python312 = shutil.which("python3.12") or ""
    works = python312 and subprocess.run([python312, "-V"], capture_output=True).returncode == 0
    if not works:
        python312 = base  # e.g. a pyenv shim with no version selected
    run([python312, "-m", "venv", str(venv)])
    run([str(venv / "bin" / "pip"), "install", "-q", MCP_PROXY_SPEC])
    return exe


async def start_mcp_proxy(procs: Processes, options: argparse.Namespace) -> Target:
    exe = ensure_mcp_proxy(Path(options.mcp_proxy_venv))
    version = run([str(exe), "--version"]).strip().split()[-1]
    port = free_port()
    args = [str(exe), "--host", "127.0.0.1", "--port", str(port), "--log-level", "WARNING"]
    process, log = procs.start("mcp-proxy", [*args, "--", PYTHON, FIXTURE])
    wait_for_port(port, process, log)
    return Target(
        "mcp-proxy",
        "mcp-proxy (stdio upstream)",
        "echo",
        http_client_factory(f"http://127.0.0.1:{port}/mcp"),
        note=f"mcp-proxy {version} (SDK v1, answers POSTs with JSON)",
        pids=(process.pid,),
    )


# --------------------------------------------------------------------------- report


def fmt(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def table(rows: list[Row]) -> str:
    proxy = next((r for r in rows if r.key == "mcp-proxy"), None)
    columns = [
        "Path",
        "median ms",
        "p99 ms",
        "mean ms",
        "calls/s (concurrent)",
        "x mcp-proxy",
        "server CPU ms/call",
        "server CPU ms/call (concurrent)",
        "client CPU ms/call (concurrent)",
        "upstream CPU ms/call (concurrent)",
        "machine busy (concurrent)",
        "note",
    ]
    cells = [
        [
            r.name,
            fmt(r.median_ms),
            fmt(r.p99_ms),
            fmt(r.mean_ms),
            fmt(r.calls_per_s, 0),
            fmt(ratio(r.calls_per_s, proxy.calls_per_s if proxy else None)),
            fmt(r.cpu_ms),
            fmt(r.concurrent_cpu_ms),
            fmt(r.client_cpu_ms),
            fmt(r.upstream_cpu_ms),
            "n/a" if r.busy_share is None else f"{r.busy_share:.0%}",
            r.note,
        ]
        for r in rows
    ]
    return _docs.markdown_table(columns, cells, "lrrrrrrrrrrl")


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def one_worker_lines(by: dict[str, Row]) -> list[str]:
    """Each single LocalRouter worker against mcp-proxy and the direct path."""
    direct, proxy = by.get("direct-http"), by.get("mcp-proxy")
    out = []
    for row in by.values():
        if not row.key.startswith("localrouter-"):
            continue
        parts = []
        if proxy:
            calls = ratio(row.calls_per_s, proxy.calls_per_s)
            verdict = "meets" if calls and calls >= 1 else "misses"
            parts.append(f"calls/s **{fmt(calls)}x** mcp-proxy ({verdict} >= 1x)")
            parts.append(f"median {row.median_ms - proxy.median_ms:+.2f} ms vs mcp-proxy")
        if direct:
            added = row.median_ms - direct.median_ms
            parts.append(f"{added:+.2f} ms vs direct HTTP (target <= {TARGET_ADDED_MS:g})")
        out.append(f"- {row.name}: {'; '.join(parts)}")
    return out


def two_worker_lines(by: dict[str, Row]) -> list[str]:
    """Calls/s of two workers against one, and what the balancer saw being forwarded."""
    out = []
    for mode in (LEGACY, MODERN):
        row = by.get(f"two-workers-{mode}")
        if row is None or not row.tallies:
            continue
        single = next(
            (r for k, r in by.items() if k.startswith("localrouter-") and k.endswith(mode)), None
        )
        parts = [f"calls/s {fmt(row.calls_per_s, 0)}"]
        best_single = max(
            (r for k, r in by.items() if k.startswith("localrouter-") and k.endswith(mode)),
            key=lambda r: r.calls_per_s or 0,
            default=single,
        )
        if best_single is not None:
            times = fmt(ratio(row.calls_per_s, best_single.calls_per_s))
            parts.append(f"{times}x the best single worker ({best_single.name})")
        busy = row.tallies.get("throughput") or {}
        if busy.get("requests"):
            share = busy["forwarded"] / busy["requests"]
            parts.append(
                f"requests forwarded {share:.0%} ({busy['forwarded']} of {busy['requests']} "
                "in the concurrent runs)"
            )
        quiet = row.tallies.get("latency") or {}
        if quiet.get("median_forwarded_ms") is not None and quiet.get("median_local_ms"):
            extra = quiet["median_forwarded_ms"] - quiet["median_local_ms"]
            parts.append(
                f"forwarding overhead **{extra:+.2f} ms** per call (median sequential "
                f"tools/call at the balancer: forwarded {quiet['median_forwarded_ms']:.2f} ms, "
                f"{quiet['calls_forwarded']} calls; owner {quiet['median_local_ms']:.2f} ms, "
                f"{quiet['calls_local']} calls)"
            )
        elif quiet.get("requests"):
            parts.append(f"no request forwarded ({quiet['requests']} sequential requests)")
        out.append(f"- Two workers, {mode}: {'; '.join(parts)}")
    return out


def summary(rows: list[Row]) -> list[str]:
    by = {r.key: r for r in rows}
    out = one_worker_lines(by) + two_worker_lines(by)
    baseline, proxy = by.get("baseline-legacy"), by.get("mcp-proxy")
    router = by.get(f"localrouter-daphne-{LEGACY}")
    if baseline and proxy and baseline.calls_per_s and proxy.calls_per_s:
        out.append(
            "- Before (baseline): throughput ratio / mcp-proxy "
            f"{baseline.calls_per_s / proxy.calls_per_s:.2f}x, median latency - mcp-proxy "
            f"{baseline.median_ms - proxy.median_ms:+.2f} ms"
        )
    if baseline and router and baseline.calls_per_s and router.calls_per_s:
        out.append(
            f"- After / before (daphne, legacy): calls/s "
            f"{router.calls_per_s / baseline.calls_per_s:.2f}x, "
            f"median latency {router.median_ms - baseline.median_ms:+.2f} ms, "
            f"server CPU per call {fmt(router.cpu_ms)} ms vs {fmt(baseline.cpu_ms)} ms"
        )
    return out


def machine() -> str:
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    parts = [f"nproc {os.cpu_count()}", f"Python {platform.python_version()}", platform.system()]
    if cpu:
        parts.append(cpu)
    parts.append(f"load average {LOAD_AT_START:.2f} at start")
    return ", ".join(parts)


def section(rows: list[Row], options: argparse.Namespace) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join(
        [
            "## Gateway overhead",
            "",
            f"Run {now} on {machine()} with `.venv/bin/python benchmarks/gateway_overhead.py "
            f"--calls {options.calls} --sessions {options.sessions} "
            f"--per-session {options.per_session} --repeat {options.repeat}"
            f"{f' --baseline {options.baseline}' if options.baseline else ''}`.",
            "",
            table(rows),
            "",
            *summary(rows),
            "",
            "Method: the same `echo` call (short text) to the SDK fixture "
            "`tests/fixtures/servers/echo_server.py`, by an SDK v2 `mcp.Client` "
            "in the benchmark process (Streamable HTTP unless noted; `mode` legacy, the "
            "initialize handshake, unless the row says 2026-07-28, the stateless era); "
            f"latency = {options.calls} sequential calls on one open session per path after "
            f"{options.warmup} warm-up calls, interleaved over the paths in {options.rounds} "
            f"rounds; calls/s = {options.sessions} concurrent sessions "
            f"(one `Client` each, sharing one upstream) doing {options.per_session} calls each, "
            f"over total wall time, best of {options.repeat} runs. "
            "Server CPU ms/call: user+system CPU time of the server process alone (daphne, "
            "uvicorn, mcp-proxy or the fixture; both workers for two; not the upstream child "
            "nor the balancer) over the sequential calls, and over the timed part of every "
            "concurrent run (from the common start to the last answer); client CPU: this "
            "benchmark process's (the SDK clients') over the same; upstream CPU: the server's "
            "children's (its stdio upstream); machine busy: the share of all CPUs' time not "
            "idle over the same. "
            "Two workers: the same code under "
            f"{options.workers_server} with `REDIS_URL`, behind `benchmarks/_balancer.py` "
            "(its own process), which sends each request to the next worker in turn, "
            "with no stickiness, and times the tools/call requests that reached a worker "
            "other than the session's owner (forwarded through Redis) and those that did not. "
            "Client, gateway, balancer and upstream share this machine's CPUs.",
        ]
    )


def write_docs(text: str) -> None:
    _docs.write_section(SECTION, text)


# --------------------------------------------------------------------------- main


async def main_async(options: argparse.Namespace, procs: Processes, workdir: Path) -> list[Row]:
    print("starting the targets ...", file=sys.stderr, flush=True)
    targets = await start_direct(procs, options)
    for server in options.servers:
        targets += await start_localrouter(procs, workdir, options, server)
    if options.baseline:
        source, commit = export_baseline(options.baseline, workdir)
        label = f" before, {options.baseline} at {commit}"
        targets += await start_localrouter(
            procs,
            workdir,
            options,
            "daphne",
            source=source,
            key="baseline",
            label=label,
            modes=[LEGACY],
        )
    if not options.skip_two_workers:
        targets += await start_two_workers(procs, workdir, options)
    if not options.skip_mcp_proxy:
        targets.append(await start_mcp_proxy(procs, options))
    print("measuring ...", file=sys.stderr, flush=True)
    return await measure_all(targets, options)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="sequential calls per target")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up calls before timing")
    parser.add_argument(
        "--rounds", type=int, default=6, help="interleaved latency rounds over the targets"
    )
    parser.add_argument("--sessions", type=int, default=20, help="concurrent client sessions")
    parser.add_argument("--per-session", type=int, default=50, help="calls per concurrent session")
    parser.add_argument(
        "--repeat", type=int, default=3, help="concurrent runs per target; the best is reported"
    )
    parser.add_argument(
        "--servers",
        default=",".join(SERVERS),
        type=lambda text: [x for x in text.split(",") if x],
        help="LocalRouter under these HTTP servers, one worker each (comma-separated; '' none)",
    )
    parser.add_argument(
        "--modes",
        default=f"{LEGACY},{MODERN}",
        type=lambda text: [x for x in text.split(",") if x],
        help="protocol eras of the client for LocalRouter (mcp-proxy: legacy only)",
    )
    parser.add_argument("--workers-server", default="uvicorn", choices=SERVERS)
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/13",
        help="Redis for the two-worker run (a database nothing else uses)",
    )
    parser.add_argument("--skip-two-workers", action="store_true")
    parser.add_argument("--mcp-proxy-venv", default=str(MCP_PROXY_VENV))
    parser.add_argument(
        "--baseline", metavar="REF", help="also measure LocalRouter as of this git ref (before)"
    )
    parser.add_argument("--skip-stdio", action="store_true")
    parser.add_argument("--skip-mcp-proxy", action="store_true")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--keep-logs", action="store_true", help="keep the temp dir with logs")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="run the LocalRouter workers under cProfile, writing DIR/NAME.prof at exit",
    )
    return parser.parse_args()


def interrupt(signum: int, frame: Any) -> None:
    """SIGTERM/SIGHUP end the run like Ctrl-C, so the `finally` blocks stop the processes."""
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> None:
    options = parse_args()
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)
    os.chdir(ROOT)
    workdir = Path(tempfile.mkdtemp(prefix="lr-bench-"))
    procs = Processes(workdir)
    try:
        rows = asyncio.run(main_async(options, procs, workdir))
    finally:
        procs.stop_all()
        if options.keep_logs:
            print(f"logs kept in {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    text = section(rows, options)
    print(text)
    if not options.no_docs:
        write_docs(text)
        print(f"\nupdated {DOCS.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
