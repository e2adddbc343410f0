"""IndexSearch over HTTP while the gateway's worker embeds responses: what an agent sees.

Shared by benchmarks/search_while_embedding.py (its default mode). One daphne on a free
127.0.0.1 port with a fresh data dir and one stdio upstream, the npm `server-filesystem`
serving a temporary folder of real text (the retrieval benchmark's documents one after
another): `searched.txt` of 482 KB and `earlier-N.txt` of 256 KiB each. The agent's SDK
session:

1. reads `searched.txt` (a placeholder comes back) and waits until the worker's log says
   that it has its vectors, then until the worker uses no CPU;
2. times IndexSearch calls on it in rounds, *idle* (nothing embedding) and *busy* in turn:
   busy while another session of the worker has read two `earlier-N.txt`, which the queue
   embeds (timed once the worker's serving threads are idle again: their indexing is done,
   only embedding goes on), and until that session closes (which stops their embedding;
   then the worker goes quiet again). Both rank the same way (hybrid: only the searched
   response's vectors are used, and they are there), so no search waits for vectors: what
   busy takes beyond idle is interference;
3. *busy, own session*: reads every `earlier-N.txt` itself, then the first of them again
   (new labels, same content: the queue embeds the first at once, and its re-reads, newer,
   go next and take its vectors), and times the same searches (once settled, as in 2.);
4. *fresh*: reads `searched.txt` again and searches the new label at once, before the
   rounds (queue idle) and while the queue still embeds the reads of 3. (queue busy): the
   search may wait up to `LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS` for that label's
   vectors when they are due within it (the intended wait), reported apart;
5. waits until the first earlier read and the re-reads after it have their vectors (the
   log's lines: a re-read whose content's vectors are stored takes them as it is indexed; one
   read while that content is still being embedded waits its turn, and its job, done in
   under `REUSED_SECONDS`, takes them then).

The worker's CPU seconds are read from /proc for each window: its threads at nice
`EMBEDDING_NICENESS` (embedding) and the others (serving the searches).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks._live import gateway_databases_ready  # noqa: F401  (sets Django up first)
from benchmarks._time_to_vectors import text_of_size
from indexing.api.embedding_queue import EMBEDDING_NICENESS
from tests.e2e.live import NODE_BIN, LiveGateway

SEARCHED_BYTES = 482_000
EARLIER_KIB = 256
QUERIES = [
    "how do I open a compressed file",
    "which option keeps file permissions",
    "time zone of a country",
    "list the tables of the database",
    "release notes of the previous version",
]
KEYWORDS_ALONE = "Ranked by keywords alone"
HEADER = re.compile(r'indexed as "(files__read_text_file:\d+)"')
VECTORS = re.compile(
    r"(files__read_text_file:\d+) (?:embedded in ([\d.]+) s|took the vectors of identical "
    r"content) \((\d+) bytes\)"
)
"""The worker's log line when a response got its vectors: embedded by its job (in so many
seconds, which reused stored vectors when short), or stored ones taken as it was indexed."""
REUSED_SECONDS = 1.0
"""A job of 256 KiB or more done in less took stored vectors: embedding it takes ~40 s."""
FRESH = 3
"""Re-reads of the searched file, each searched at once."""
TAIL_LIMIT = 900
"""Seconds to wait at the end for the first earlier read's vectors and the reuses after it."""
GAP = 0.05
"""Seconds between two searches: an agent's calls come apart, not back to back."""


@dataclass
class Search:
    """One timed IndexSearch: seconds, and whether keywords alone ranked."""

    seconds: float
    keywords_alone: bool


@dataclass
class Window:
    """The searches of one state, the wall and embedding CPU seconds it lasted."""

    searches: list[Search] = field(default_factory=list)
    wall: float = 0.0
    embedding_cpu: float = 0.0
    serving_cpu: float = 0.0  # the worker's other threads: the searches and their HTTP

    def extend(self, other: Window) -> None:
        self.searches += other.searches
        self.wall += other.wall
        self.embedding_cpu += other.embedding_cpu
        self.serving_cpu += other.serving_cpu

    @property
    def seconds(self) -> list[float]:
        return [search.seconds for search in self.searches]


@dataclass
class LiveRun:
    idle: Window
    busy: Window
    own: Window  # busy with the reads of the searching session itself
    fresh_idle: Window  # re-reads of the searched file, each searched at once
    fresh_busy: Window
    vectors_wait: float  # seconds from the read of `searched.txt` to its vectors
    jobs: list[tuple[str, float | None, int]]  # `vectors_done` after the earlier reads
    rereads: int  # re-reads of the first earlier read


def write_files(folder: Path, texts: list[str], earlier: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "searched.txt").write_text(text_of_size(texts, SEARCHED_BYTES), encoding="utf-8")
    for n in range(earlier):
        rotated = texts[(n + 1) * 5 :] + texts[: (n + 1) * 5]
        text = text_of_size(rotated, EARLIER_KIB * 1024)
        (folder / f"earlier-{n}.txt").write_text(text, encoding="utf-8")


def filesystem_upstream(folder: Path) -> dict:
    return {
        "name": "files",
        "transport": "stdio",
        "command": str(NODE_BIN / "mcp-server-filesystem"),
        "args": [str(folder)],
    }


def embedding_cpu(pid: int) -> float:
    """CPU seconds of `pid`'s threads at the embedding queue's nice value (the queue's thread
    and any it started)."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[16]) == EMBEDDING_NICENESS:  # field 19 (nice), counted after the name
            total += (int(fields[11]) + int(fields[12])) / 100
    return total


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


async def quiet(pid: int, limit: float = 600) -> None:
    """Until the worker uses under 5% of a CPU over a second (catalog vectors, indexing and
    embedding done)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = process_cpu(pid)
        await asyncio.sleep(1)
        if process_cpu(pid) - before < 0.05:
            return
    raise SystemExit("the worker never went quiet")


async def settled(pid: int, limit: float = 120) -> None:
    """Until the worker's serving threads (not the embedding ones) use under 5% of a CPU over
    a second: the responses just read are indexed and queued; only embedding goes on."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = process_cpu(pid) - embedding_cpu(pid)
        await asyncio.sleep(1)
        if process_cpu(pid) - embedding_cpu(pid) - before < 0.05:
            return
    raise SystemExit("the worker's serving threads never settled")


async def read(client, path: Path) -> str:
    result = await client.call_tool("files__read_text_file", {"path": str(path)})
    text = result.content[0].text
    found = HEADER.search(text)
    if result.is_error or not found:
        raise SystemExit(f"no placeholder for {path.name}: {text[:300]}")
    return found.group(1)


async def search(client, label: str, query: str) -> Search:
    started = time.perf_counter()
    result = await client.call_tool("IndexSearch", {"queries": [query], "source": label})
    seconds = time.perf_counter() - started
    text = result.content[0].text
    if result.is_error or f"{label} line" not in text:
        raise SystemExit(f"IndexSearch failed: {text[:300]}")
    return Search(seconds, KEYWORDS_ALONE in text)


async def timed(client, label: str, count: int, pid: int) -> Window:
    window = Window()
    wall, cpu, total = time.perf_counter(), embedding_cpu(pid), process_cpu(pid)
    for n in range(count):
        window.searches.append(await search(client, label, QUERIES[n % len(QUERIES)]))
        await asyncio.sleep(GAP)
    window.wall = time.perf_counter() - wall
    window.embedding_cpu = embedding_cpu(pid) - cpu
    window.serving_cpu = process_cpu(pid) - total - window.embedding_cpu
    return window


async def until_embedded(live: LiveGateway, label: str, limit: float = 1800) -> None:
    """Until the worker's log says that `label` has its vectors."""
    deadline = time.monotonic() + limit
    while label not in [job for job, _, _ in vectors_done(live.log())]:
        if time.monotonic() > deadline:
            raise SystemExit(f"{label} got no vectors in {limit:g} s")
        await asyncio.sleep(1)


async def measure(
    live: LiveGateway, folder: Path, *, searches: int, rounds: int, rereads: int
) -> LiveRun:
    pid = live.process.pid
    earlier = sorted(folder.glob("earlier-*.txt"))
    each = max(1, searches // rounds)
    async with live.client("agent") as client:
        started = time.perf_counter()
        label = await read(client, folder / "searched.txt")
        await until_embedded(live, label)
        vectors_wait = time.perf_counter() - started
        await quiet(pid)
        await timed(client, label, 5, pid)  # warm-up
        fresh_idle = await fresh(client, folder / "searched.txt", pid)
        progress("fresh, queue idle", fresh_idle)
        idle, busy = Window(), Window()
        for _ in range(rounds):  # idle and busy in turn: the machine's load drifts
            idle.extend(await timed(client, label, each, pid))
            # Another session of the worker reads; closing it stops its responses' embedding.
            async with live.client("agent") as reader:
                for path in earlier[:2]:
                    await read(reader, path)
                await settled(pid)  # their indexing is done: the queue embeds
                busy.extend(await timed(client, label, each, pid))
            await quiet(pid)
        progress("idle", idle)
        progress("busy", busy)
        read_at = len(live.log())
        # The first read is embedded at once; its re-reads, newer, go next and take its vectors.
        for path in [*earlier, *[earlier[0]] * rereads]:
            await read(client, path)
        await settled(pid)
        own = await timed(client, label, each, pid)
        progress("busy, own session", own)
        fresh_busy = await fresh(client, folder / "searched.txt", None)
        progress("fresh, queue busy", fresh_busy)
        # Until the first earlier read is embedded and the re-reads after it are done.
        deadline = time.monotonic() + TAIL_LIMIT
        while len(vectors_done(live.log()[read_at:])) < 1 + rereads + FRESH:
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(1)
    done = vectors_done(live.log()[read_at:])
    print(f"vectors after the agent's reads: {done}", file=sys.stderr)
    return LiveRun(idle, busy, own, fresh_idle, fresh_busy, vectors_wait, done, rereads)


async def fresh(client, path: Path, pid: int | None) -> Window:
    """`path` read again `FRESH` times, each new label searched at once; with `pid`, the
    worker goes quiet after each (its indexing, its vectors when they come at once)."""
    window = Window()
    for n in range(FRESH):
        again = await read(client, path)
        window.searches.append(await search(client, again, QUERIES[n]))
        if pid is not None:
            await quiet(pid)
    return window


def vectors_done(log: str) -> list[tuple[str, float | None, int]]:
    """The responses that got their vectors, from the log: label, seconds of their job (None:
    stored ones taken as it was indexed), bytes."""
    return [
        (label, float(seconds) if seconds else None, int(size))
        for label, seconds, size in VECTORS.findall(log)
    ]


def progress(name: str, window: Window) -> None:
    values = window.seconds
    print(
        f"{name}: {len(values)} searches, median {ms(values, statistics.median)} ms, "
        f"serving CPU {window.serving_cpu:.2f} s, embedding CPU {window.embedding_cpu:.1f} s "
        f"in {window.wall:.1f} s",
        file=sys.stderr,
        flush=True,
    )


def ms(values: list[float], pick) -> str:
    return f"{1000 * pick(values):.1f}" if values else "-"


def p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * len(values))]


def report(run: LiveRun) -> tuple[list[str], float, float]:
    """The table's lines, and the busy medians (other session, own) over the idle one."""
    lines = [
        "| state | searches | median ms | p90 ms | max ms | keywords alone | serving CPU ms "
        "a search | embedding CPU s / wall s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    states = [("idle", run.idle), ("busy", run.busy), ("busy, own session", run.own)]
    fresh = [("fresh, queue idle", run.fresh_idle), ("fresh, queue busy", run.fresh_busy)]
    for name, window in [*states, *fresh]:
        values = window.seconds
        alone = sum(search.keywords_alone for search in window.searches)
        share = f"{window.embedding_cpu:.1f} / {window.wall:.1f}" if window.wall else "-"
        serving = f"{1000 * window.serving_cpu / len(values):.0f}" if window.wall else "-"
        lines.append(
            f"| {name} | {len(values)} | {ms(values, statistics.median)} "
            f"| {ms(values, p90)} | {ms(values, max)} | {alone} | {serving} | {share} |"
        )
    idle = statistics.median(run.idle.seconds)
    busy, own = (statistics.median(window.seconds) / idle for window in (run.busy, run.own))
    return lines, busy, own
