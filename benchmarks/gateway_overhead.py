"""Gateway overhead: one small `echo` tool call, direct vs. through LocalRouter vs. mcp-proxy.

Run from the repository root:

    .venv/bin/python benchmarks/gateway_overhead.py [--calls 300] [--sessions 20] [--per-session 50]

Every target serves the same upstream, the SDK fixture `tests/fixtures/servers/echo_server.py`:

* direct (HTTP):  the fixture itself with `--http` on a free 127.0.0.1 port;
* direct (stdio): the fixture as a child process of the benchmark (latency only);
* LocalRouter:    daphne on a free 127.0.0.1 port, fresh data dir, one stdio upstream `echo`;
* mcp-proxy:      PyPI `mcp-proxy` 0.13 (SDK v1, in its own venv under /tmp) serving the
                  stdio fixture over Streamable HTTP on 127.0.0.1.

All targets run at once and are measured in interleaved rounds, so load from elsewhere on the
machine hits them alike. For each: median and p99 of N sequential calls on one session (after a
warm-up), and calls/s with S concurrent sessions (each its own `mcp.Client`, each doing K calls;
total wall time; best of `--repeat` runs, since other load on the machine only ever lowers it).
The client is the SDK v2 `mcp.Client` in `legacy` (initialize handshake) mode, in this process.

The markdown table goes to stdout and into docs/benchmarks.md between the
`<!-- gateway_overhead:start -->` / `<!-- gateway_overhead:end -->` markers (`--no-docs` skips).
Every process started here is stopped before exit (terminate, wait, then kill leftovers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
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
MCP_PROXY_VENV = Path(tempfile.gettempdir()) / "localrouter-bench-mcp-proxy"
TEXT = "hello, gateway"
TARGET_ADDED_MS = 3.0
LOAD_AT_START = os.getloadavg()[0]

ClientFactory = Callable[[], contextlib.AbstractAsyncContextManager[Client]]


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

    def start(self, name: str, args: list[str], env: dict[str, str] | None = None):
        log = self.logdir / f"{name}.log"
        handle = open(log, "wb")  # noqa: SIM115 - closed in stop_all
        process = subprocess.Popen(
            args,
            cwd=ROOT,
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


def run(args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> str:
    done = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


# --------------------------------------------------------------------------- clients


def http_client_factory(url: str, headers: dict[str, str] | None = None) -> ClientFactory:
    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[Client]:
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with httpx2.AsyncClient(headers=headers or {}, timeout=timeout) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy") as client:
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
    note: str = ""


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


async def concurrent(factory: ClientFactory, tool: str, sessions: int, per_session: int) -> float:
    """Calls/s of `sessions` clients, each doing `per_session` calls, all started together.

    Each session lives in its own task (SDK contexts must exit in the task that entered them);
    the clock runs from the common start signal to the last session's last answer.
    """
    ready: list[asyncio.Event] = [asyncio.Event() for _ in range(sessions)]
    go = asyncio.Event()
    finished: list[float] = []

    async def session(index: int) -> None:
        async with factory() as client:
            await echo(client, tool)  # connected and warm
            ready[index].set()
            await go.wait()
            for _ in range(per_session):
                await echo(client, tool)
            finished.append(time.perf_counter())

    tasks = [asyncio.create_task(session(i)) for i in range(sessions)]
    try:
        while not all(event.is_set() for event in ready):
            failed = [t for t in tasks if t.done() and t.exception() is not None]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.01)
        start = time.perf_counter()
        go.set()
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return sessions * per_session / (max(finished) - start)


@dataclass
class Target:
    """One way of reaching the fixture's `echo` tool."""

    key: str
    name: str
    tool: str
    factory: ClientFactory
    throughput: bool = True
    note: str = ""


async def measure_all(targets: list[Target], options: argparse.Namespace) -> list[Row]:
    """Interleave the targets so that load from elsewhere on the machine hits them alike.

    Latency: one open session per target; `--rounds` rounds, each doing its share of the
    `--calls` sequential calls on every target in turn. Throughput: `--repeat` rounds of the
    concurrent run on every target in turn; the best run counts.
    """
    samples: dict[str, list[float]] = {t.key: [] for t in targets}
    per_round = max(1, options.calls // options.rounds)
    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for t in targets:
            clients[t.key] = await stack.enter_async_context(t.factory())
            for _ in range(options.warmup):
                await echo(clients[t.key], t.tool)
        print(
            f"  latency: {options.rounds} rounds x {per_round} sequential calls per target",
            file=sys.stderr,
            flush=True,
        )
        for _ in range(options.rounds):
            for t in targets:
                client, series = clients[t.key], samples[t.key]
                for _ in range(per_round):
                    start = time.perf_counter()
                    await echo(client, t.tool)
                    series.append((time.perf_counter() - start) * 1000)
    runs: dict[str, list[float]] = {t.key: [] for t in targets if t.throughput}
    for i in range(options.repeat):
        print(
            f"  throughput run {i + 1}/{options.repeat}: {options.sessions} sessions x "
            f"{options.per_session} calls per target",
            file=sys.stderr,
            flush=True,
        )
        for t in targets:
            if t.throughput:
                rate = await concurrent(t.factory, t.tool, options.sessions, options.per_session)
                runs[t.key].append(rate)
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
        if t.throughput:
            row.calls_per_s = max(runs[t.key])
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCALROUTER_")}
    env.update(
        LOCALROUTER_DATA_DIR=str(data_dir),
        DATABASE_URL="",  # set but empty: a .env file cannot point the run at a real database
        REDIS_URL="",
        DEBUG="false",
        DJANGO_SETTINGS_MODULE="localrouter.settings",
        PYTHONUNBUFFERED="1",
    )
    return env


async def start_localrouter(procs: Processes, workdir: Path, options: argparse.Namespace) -> Target:
    env = localrouter_env(workdir / "localrouter-data")
    manage = [PYTHON, "manage.py"]
    run([*manage, "migrate", "--no-input"], env)
    servers = workdir / "mcp_servers.json"
    servers.write_text(json.dumps({"mcpServers": {"echo": {"command": PYTHON, "args": [FIXTURE]}}}))
    run([*manage, "import_mcp_servers", str(servers)], env)
    token = run([*manage, "create_client", "bench"], env).strip().splitlines()[-1].strip()
    port = free_port()
    daphne = [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
    if options.daphne_access_log:
        daphne += ["--access-log", str(workdir / "daphne-access.log")]
    process, log = procs.start("localrouter", [*daphne, "localrouter.asgi:application"], env)
    wait_for_port(port, process, log)
    return Target(
        "localrouter",
        "LocalRouter (daphne, stdio upstream)",
        "echo__echo",
        http_client_factory(f"http://127.0.0.1:{port}/mcp", {"Authorization": f"Bearer {token}"}),
    )


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
    )


# --------------------------------------------------------------------------- report


def fmt(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def table(rows: list[Row]) -> str:
    columns = ["Path", "median ms", "p99 ms", "mean ms", "calls/s (concurrent)", "note"]
    cells = [
        [r.name, fmt(r.median_ms), fmt(r.p99_ms), fmt(r.mean_ms), fmt(r.calls_per_s, 0), r.note]
        for r in rows
    ]
    return _docs.markdown_table(columns, cells, "lrrrrl")


def summary(rows: list[Row]) -> list[str]:
    by = {r.key: r for r in rows}
    direct, router, proxy = by.get("direct-http"), by.get("localrouter"), by.get("mcp-proxy")
    out = []
    if direct and router and direct.median_ms is not None and router.median_ms is not None:
        added = router.median_ms - direct.median_ms
        verdict = "meets" if added <= TARGET_ADDED_MS else "misses"
        out.append(
            f"- Added median latency, LocalRouter - direct (HTTP): **{added:.2f} ms** "
            f"({verdict} the <= {TARGET_ADDED_MS:g} ms target)"
        )
    if proxy and router and proxy.median_ms is not None and router.median_ms is not None:
        out.append(
            "- Median latency, LocalRouter - mcp-proxy: "
            f"{router.median_ms - proxy.median_ms:+.2f} ms"
        )
    if proxy and router and proxy.calls_per_s and router.calls_per_s:
        ratio = router.calls_per_s / proxy.calls_per_s
        verdict = "meets" if ratio >= 1 else "misses"
        out.append(
            f"- Throughput ratio, LocalRouter / mcp-proxy: **{ratio:.2f}x** "
            f"({verdict} the >= 1x target)"
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
            f"--per-session {options.per_session}`.",
            "",
            table(rows),
            "",
            *summary(rows),
            "",
            "Method: the same `echo` call (short text) to the SDK fixture "
            "`tests/fixtures/servers/echo_server.py`, by an SDK v2 `mcp.Client` "
            '(`mode="legacy"`, Streamable HTTP unless noted) in the benchmark process; '
            f"latency = {options.calls} sequential calls on one open session per path after "
            f"{options.warmup} warm-up calls, interleaved over the paths in {options.rounds} "
            f"rounds; calls/s = {options.sessions} concurrent sessions "
            f"(one `Client` each, sharing one upstream) doing {options.per_session} calls each, "
            f"over total wall time, best of {options.repeat} runs. "
            "Client, gateway and upstream share this machine's CPUs.",
        ]
    )


def write_docs(text: str) -> None:
    _docs.write_section(SECTION, text)


# --------------------------------------------------------------------------- main


async def main_async(options: argparse.Namespace, procs: Processes, workdir: Path) -> list[Row]:
    print("starting the targets ...", file=sys.stderr, flush=True)
    targets = await start_direct(procs, options)
    if not options.skip_localrouter:
        targets.append(await start_localrouter(procs, workdir, options))
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
    parser.add_argument("--mcp-proxy-venv", default=str(MCP_PROXY_VENV))
    parser.add_argument("--skip-stdio", action="store_true")
    parser.add_argument("--skip-localrouter", action="store_true")
    parser.add_argument("--skip-mcp-proxy", action="store_true")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--keep-logs", action="store_true", help="keep the temp dir with logs")
    parser.add_argument("--daphne-access-log", action="store_true")
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
