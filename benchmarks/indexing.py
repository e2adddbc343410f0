"""Indexing benchmark: throughput, time to placeholder, IndexSearch latency, memory.

Run from the repository root (about 4 minutes; `--quick` about 1):

    .venv/bin/python benchmarks/indexing.py [--quick] [--no-docs]

Corpora are real text from this machine (see `benchmarks/_docs.py`): Markdown files of
`node_modules/` and the venv, a JSON array of the real JSON files there (a few large
items), a compact JSON array of Debian's package records (`/var/lib/dpkg/status`: many
small records, as an API answers a list), Django's Python modules, and plain-text logs
(`/var/log/*.log`, then Debian changelogs). Files and records are concatenated (and
repeated when there is too little) to each size.

* index throughput: `ResponseCompressor.compress` (chunk, placeholder; the store written by
  a writer thread meanwhile) into a fresh `SessionStore`, wall time, median over repeats,
  for 10 KiB .. 20 MiB of each format;
* floor: the same text as ONE row into bare FTS5 tables (no chunking), with
  the tokenizers the store uses for that size (porter, plus trigram up to the store's
  trigram bound);
* time to placeholder: `indexing.tool_results.compress_result` on a 1 MiB `CallToolResult`
  (what the gateway awaits between the upstream result and the client's placeholder), and
  until the response is searchable (the store is written in the background);
* IndexSearch: `format_search` with one query, p50/p99, once 1, 10 and 50 MiB of 1 MiB
  responses (all formats, in turn) sit in one store; queries are words taken from the
  indexed text at random (fixed seed);
* memory, in a fresh child process per case, after one small warm-up document (once-only
  costs such as imports are not per-byte costs): peak RSS growth while indexing (whole process,
  from /proc/self/status VmHWM; with `make serve`'s malloc settings, and without), SQLite's own
  allocator (`sqlite3_memory_used`/highwater
  through ctypes) and the Python heap peak (tracemalloc), each per indexed input byte.

1 MiB = 2^20 bytes. Markdown tables go to stdout and into docs/benchmarks.md between
`<!-- indexing:start -->` and `<!-- indexing:end -->`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import indexing` must not find this file

import mcp_types as types  # noqa: E402

from benchmarks import _docs  # noqa: E402
from indexing.chunker import chunk_document  # noqa: E402
from indexing.compressor import (  # noqa: E402
    SWITCH_INTERVAL_SECONDS,
    ResponseCompressor,
    tune_thread_switching,
)
from indexing.labels import LabelCounter  # noqa: E402
from indexing.search import format_search  # noqa: E402
from indexing.store import DEFAULT_TRIGRAM_MAX_BYTES, SessionStore  # noqa: E402
from indexing.text import sanitize  # noqa: E402
from indexing.tool_results import compress_result  # noqa: E402

SECTION = "indexing"
KIB, MIB = 2**10, 2**20
THRESHOLD = 16_384
TOOL = "files__read_text_file"
TARGET_MB_S = 20.0
TARGET_PLACEHOLDER_MS = 100.0
TARGET_SEARCH_P50_MS = 5.0
TARGET_MEMORY_RATIO = 3.0
FORMATS = ("markdown", "json", "records", "code", "logs")
SERVER_MALLOC = {"MALLOC_ARENA_MAX": "1", "MALLOC_MMAP_THRESHOLD_": "262144"}
"""The malloc settings `make serve` runs the gateway with (see the Makefile)."""
FTS_TABLES = ("chunk_words", "chunk_trigrams")
_SOURCES: dict[str, Callable[[], list[Path]]] = {
    "markdown": _docs.markdown_files,
    "json": _docs.json_files,
    "code": _docs.python_files,
    "logs": _docs.log_files,
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


@dataclass
class Plan:
    sizes: list[int]
    store_sizes: list[int]
    memory_sizes: list[int]
    queries: int
    placeholder_repeats: int
    min_repeats: int = 3
    passes: int = 3
    """Throughput is measured in this many passes over every row, interleaved."""

    def repeats_per_pass(self, size: int) -> int:
        """More repeats for small documents; in all, at least 3 (1 in the quick run) and
        about 9 for small ones."""
        repeats = max(self.min_repeats, min(9, (8 * MIB) // size))
        return -(-repeats // self.passes)


FULL = Plan(
    sizes=[10 * KIB, 100 * KIB, MIB, 5 * MIB, 20 * MIB],
    store_sizes=[MIB, 10 * MIB, 50 * MIB],
    memory_sizes=[MIB, 20 * MIB],
    queries=300,
    placeholder_repeats=9,
    min_repeats=3,
)
QUICK = Plan(
    sizes=[10 * KIB, 100 * KIB, MIB, 5 * MIB],
    store_sizes=[MIB, 10 * MIB, 50 * MIB],
    memory_sizes=[MIB],
    queries=100,
    placeholder_repeats=5,
    min_repeats=1,
    passes=1,
)


# --------------------------------------------------------------------------- corpora


_PATHS: dict[str, list[Path]] = {}


def corpus(kind: str, size: int, skip: int = 0) -> str:
    """Real text of one format, about `size` UTF-8 bytes; `skip` varies the files used."""
    if kind == "records":
        return _docs.records_of_size(size, skip)
    if kind not in _PATHS:
        _PATHS[kind] = _SOURCES[kind]()
    if kind == "json":
        return _docs.json_of_size(_PATHS[kind], size, skip)
    return _docs.text_of_size(_PATHS[kind], size, skip)


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def size_name(size: int) -> str:
    return f"{size // MIB} MiB" if size >= MIB else f"{size // KIB} KiB"


# --------------------------------------------------------------------------- measurements


def index_once(text: str) -> tuple[float, int, int, str]:
    """Compress `text` into a fresh store; return (seconds, lines, chunks, detected format)."""
    store = SessionStore()
    try:
        started = time.perf_counter()
        placeholder, stats = ResponseCompressor(store, LabelCounter()).compress(
            TOOL, text, threshold=min(THRESHOLD, len(text) // 2)
        )
        seconds = time.perf_counter() - started
        assert placeholder is not None and stats is not None, "response was not indexed"
        fmt = store.document(stats.label).format
        return seconds, stats.lines, stats.chunks, str(fmt)
    finally:
        store.close()


def chunk_once(text: str) -> float:
    started = time.perf_counter()
    chunk_document(sanitize(text))
    return time.perf_counter() - started


def floor_once(text: str, with_trigrams: bool) -> float:
    """Insert `text` as one row into bare FTS5 tables: no chunking."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.execute("CREATE VIRTUAL TABLE words USING fts5(body, tokenize='porter unicode61')")
        db.execute("CREATE VIRTUAL TABLE grams USING fts5(body, tokenize='trigram')")
        started = time.perf_counter()
        db.execute("BEGIN")
        db.execute("INSERT INTO words (body) VALUES (?)", (text,))
        if with_trigrams:
            db.execute("INSERT INTO grams (body) VALUES (?)", (text,))
        db.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        db.close()


@dataclass
class ThroughputRow:
    kind: str
    target: int
    size: int
    detected: str
    lines: int
    chunks: int
    trigrams: bool
    seconds: float
    chunk_seconds: float
    floor_seconds: float
    repeats: int

    @property
    def mb_s(self) -> float:
        return self.size / MIB / self.seconds

    @property
    def floor_mb_s(self) -> float:
        return self.size / MIB / self.floor_seconds


@dataclass
class _Samples:
    """Timings of one (format, size) row, gathered over the passes."""

    text: str
    index: list[float] = field(default_factory=list)
    chunk: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    lines: int = 0
    chunks: int = 0
    detected: str = ""

    def __post_init__(self) -> None:
        self.size = nbytes(self.text)
        self.trigrams = self.size <= DEFAULT_TRIGRAM_MAX_BYTES


def throughput_rows(plan: Plan) -> list[ThroughputRow]:
    """Every format and size, measured in `plan.passes` passes over all of them.

    This machine's speed drifts (by a third, over minutes); passes spread a slow spell
    over every row instead of the few measured during it.
    """
    rows = {(kind, size): _Samples(corpus(kind, size)) for kind in FORMATS for size in plan.sizes}
    for number in range(1, plan.passes + 1):
        for samples in rows.values():
            for _ in range(plan.repeats_per_pass(samples.size)):
                gc.collect()
                seconds, samples.lines, samples.chunks, samples.detected = index_once(samples.text)
                samples.index.append(seconds)
                samples.chunk.append(chunk_once(samples.text))
                gc.collect()
                samples.floor.append(floor_once(samples.text, samples.trigrams))
        print(f"  throughput pass {number} of {plan.passes} done", file=sys.stderr, flush=True)
    return [
        ThroughputRow(
            kind,
            size,
            samples.size,
            samples.detected,
            samples.lines,
            samples.chunks,
            samples.trigrams,
            statistics.median(samples.index),
            statistics.median(samples.chunk),
            statistics.median(samples.floor),
            len(samples.index),
        )
        for (kind, size), samples in rows.items()
    ]


def placeholder_latency(kind: str, repeats: int) -> tuple[float, float, float]:
    """Median and max milliseconds of `compress_result` on a 1 MiB CallToolResult, and the
    median until the response is searchable (its store written in the background)."""
    text = corpus(kind, MIB, skip=3)
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def run() -> tuple[list[float], list[float]]:
        times, searchable = [], []
        for _ in range(repeats):
            store = SessionStore()
            compressor = ResponseCompressor(store, LabelCounter())
            gc.collect()
            started = time.perf_counter()
            compressed, compression = await compress_result(
                result,
                compressor,
                tool_name=TOOL,
                threshold=THRESHOLD,
                search_tool="IndexSearch",
                read_tool="IndexRead",
            )
            times.append(time.perf_counter() - started)
            assert compression is not None and compressed is not result
            compression.index()  # waits for the writer
            searchable.append(time.perf_counter() - started)
            store.close()
        return times, searchable

    times, searchable = asyncio.run(run())
    median = statistics.median
    return median(times) * 1000, max(times) * 1000, median(searchable) * 1000


def sample_queries(texts: list[str], count: int) -> list[str]:
    """Queries of 1, 2 or 4 words picked from random lines of the indexed text (fixed seed)."""
    rnd = random.Random(20260728)
    queries: list[str] = []
    while len(queries) < count:
        text = rnd.choice(texts)
        at = rnd.randrange(len(text))
        line = text[text.rfind("\n", 0, at) + 1 : text.find("\n", at)]
        words = _WORD.findall(line)
        want = (1, 2, 4)[len(queries) % 3]
        if len(words) >= want:
            first = rnd.randrange(len(words) - want + 1)
            queries.append(" ".join(words[first : first + want]))
    return queries


@dataclass
class SearchRow:
    size: int
    documents: int
    p50_ms: float
    p99_ms: float
    source_p50_ms: float
    source_p99_ms: float
    sqlite_bytes: int | None


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def search_latency(plan: Plan) -> list[SearchRow]:
    """Fill one store with 1 MiB responses and time IndexSearch at each store size."""
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    texts: list[str] = []
    labels: list[str] = []
    rows = []
    before = sqlite_memory_used()
    for target in plan.store_sizes:
        while store.total_bytes < target:
            kind = FORMATS[len(texts) % len(FORMATS)]
            text = corpus(kind, MIB, skip=len(texts) * 17)
            _, stats = compressor.compress(TOOL, text, threshold=THRESHOLD)
            assert stats is not None
            texts.append(text)
            labels.append(stats.label)
        queries = sample_queries(texts, plan.queries)
        for query in queries[:10]:  # warm caches
            format_search(store, [query])
        everywhere, one_label = [], []
        for number, query in enumerate(queries):
            started = time.perf_counter()
            format_search(store, [query])
            everywhere.append(time.perf_counter() - started)
            source = labels[number % len(labels)]
            started = time.perf_counter()
            format_search(store, [query], source=source)
            one_label.append(time.perf_counter() - started)
        used = sqlite_memory_used()
        rows.append(
            SearchRow(
                store.total_bytes,
                len(texts),
                percentile(everywhere, 0.5) * 1000,
                percentile(everywhere, 0.99) * 1000,
                percentile(one_label, 0.5) * 1000,
                percentile(one_label, 0.99) * 1000,
                None if used is None or before is None else used - before,
            )
        )
        print(f"  search at {size_name(target)} done", file=sys.stderr, flush=True)
    store.close()
    return rows


# --------------------------------------------------------------------------- memory


def _sqlite_library() -> ctypes.CDLL | None:
    """The libsqlite3 this process's `sqlite3` module uses, found in /proc/self/maps."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/maps").read_text().splitlines():
            path = line.split()[-1]
            if "libsqlite3" in path and path.startswith("/"):
                library = ctypes.CDLL(path)
                library.sqlite3_memory_used.restype = ctypes.c_int64
                library.sqlite3_memory_highwater.restype = ctypes.c_int64
                library.sqlite3_memory_highwater.argtypes = [ctypes.c_int]
                return library
    return None


_SQLITE = _sqlite_library()


def sqlite_memory_used() -> int | None:
    return None if _SQLITE is None else int(_SQLITE.sqlite3_memory_used())


def sqlite_highwater(reset: bool = False) -> int | None:
    return None if _SQLITE is None else int(_SQLITE.sqlite3_memory_highwater(int(reset)))


def proc_status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def memory_probe(kind: str, target: int) -> dict[str, float | int | None]:
    """Index one document in this (fresh) process and report memory growth in bytes."""
    text = corpus(kind, target)
    size = nbytes(text)
    # One small document first: lazy imports, compiled patterns and SQLite's first
    # allocations are the process's once-only costs, not memory per indexed byte.
    warm_up = SessionStore()
    ResponseCompressor(warm_up, LabelCounter()).compress(
        TOOL, corpus(kind, 64 * KIB, skip=1), threshold=1024
    )
    warm_up.close()
    del warm_up
    _PATHS.clear()
    _docs.clear_caches()
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # give freed corpus-building memory back
    rss_before = proc_status("VmRSS")
    peak_known = reset_peak_rss()
    sqlite_before = sqlite_memory_used()
    sqlite_highwater(reset=True)
    store = SessionStore()
    placeholder, stats = ResponseCompressor(store, LabelCounter()).compress(
        TOOL, text, threshold=THRESHOLD
    )
    assert placeholder is not None and stats is not None
    peak_rss = proc_status("VmHWM") - rss_before if peak_known else None
    sqlite_peak = sqlite_highwater()
    sqlite_after = sqlite_memory_used()
    tables = table_sizes(store)
    text_kept = sum(sys.getsizeof(lines.text) for lines in store._lines.values())
    del placeholder, stats
    gc.collect()
    rss_after = proc_status("VmRSS") - rss_before
    store.close()
    gc.collect()
    tracemalloc.start()
    store = SessionStore()
    ResponseCompressor(store, LabelCounter()).compress(TOOL, text, threshold=THRESHOLD)
    python_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    store.close()
    known = sqlite_before is not None and sqlite_after is not None and sqlite_peak is not None
    return {
        "bytes": size,
        "peak_rss": peak_rss,
        "rss_after": rss_after,
        "text_kept": text_kept,
        "sqlite_peak": sqlite_peak - sqlite_before if known else None,
        "sqlite_retained": sqlite_after - sqlite_before if known else None,
        "python_peak": python_peak,
        "tables": tables,
    }


def table_sizes(store: SessionStore) -> dict[str, int]:
    """Bytes per table, its indexes and FTS shadow tables included, via SQLite's dbstat.

    Reads the store's private connection: a diagnostic only; empty when dbstat is missing.
    """
    sizes: dict[str, int] = {}
    with contextlib.suppress(sqlite3.Error, AttributeError):
        rows = store._connection.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
        for name, size in rows:
            owner = next((t for t in FTS_TABLES if name.startswith(t)), "other")
            sizes[owner] = sizes.get(owner, 0) + size
    return sizes


def _environment_text() -> str:
    return ", ".join(f"`{name}={value}`" for name, value in SERVER_MALLOC.items())


def run_memory_probe(
    kind: str, target: int, *, server_malloc: bool = True
) -> dict[str, float | int | None]:
    """Run `memory_probe` in a child process, so earlier work does not hide the growth.

    `server_malloc`: with glibc's malloc set up as `make serve` runs the gateway.
    """
    environment = {**os.environ, **(SERVER_MALLOC if server_malloc else {})}
    done = subprocess.run(
        [sys.executable, __file__, "--memory-probe", kind, str(target)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=environment,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- report


def ratio(value: float | int | None, size: int) -> str:
    return "n/a" if value is None else f"{value / size:.2f}x"


def _table_order(name: str) -> tuple[int, str]:
    order = ["chunk_words", "chunk_trigrams", "other"]
    return (order.index(name) if name in order else len(order), name)


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def report(
    plan: Plan,
    quick: bool,
    rows: list[ThroughputRow],
    placeholders: dict[str, tuple[float, float, float]],
    searches: list[SearchRow],
    memory: list[tuple[str, int, dict]],
) -> str:
    out = [
        "## Indexing",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python benchmarks/indexing.py"
        f"{' --quick' if quick else ''}`. 1 MiB = 2^20 bytes; MiB/s counts input bytes.",
        "",
        "### Index throughput",
        "",
        "`ResponseCompressor.compress` into a fresh store, wall time, median of the repeats, "
        f"taken in {plan.passes} interleaved pass{'es' if plan.passes > 1 else ''} over all rows "
        "(this machine's speed drifts by up to "
        "a third over minutes: passes spread a slow spell over every row): "
        "the response is chunked in this thread while a writer thread writes its FTS5 rows "
        "(as in the gateway, whose threads switch every "
        f"{SWITCH_INTERVAL_SECONDS * 1000:g} ms: `tune_thread_switching`). *floor* = the "
        "same text as one "
        "row into bare FTS5 tables with the same tokenizers (porter, plus trigram when the "
        f"store builds one: documents up to {size_name(DEFAULT_TRIGRAM_MAX_BYTES)}). "
        "*chunk share* = `chunk_document` alone (one thread), over the index time. The "
        "threshold is lowered to half the size so 10 KiB responses are indexed too (the "
        "default 16 KiB would pass them through).",
        "",
        "| corpus | size | detected | lines | chunks | trigram | repeats | index s "
        "| **index MiB/s** | chunk share | floor MiB/s | floor / index |",
        "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.kind} | {size_name(r.target)} | {r.detected} | {r.lines:,} | {r.chunks:,} "
            f"| {'yes' if r.trigrams else 'no'} | {r.repeats} | {r.seconds:.3f} "
            f"| **{r.mb_s:.1f}** | {r.chunk_seconds / r.seconds:.0%} | {r.floor_mb_s:.1f} "
            f"| {r.seconds / r.floor_seconds:.1f}x |"
        )
    big = [r for r in rows if r.target >= MIB]
    slowest = min(big or rows, key=lambda r: r.mb_s)
    out += [
        "",
        f"Target >= {TARGET_MB_S:g} MiB/s (documents >= 1 MiB): "
        f"{verdict(slowest.mb_s >= TARGET_MB_S)} — slowest {slowest.mb_s:.1f} MiB/s "
        f"({slowest.kind}, {size_name(slowest.target)}).",
        "",
        "### Time to placeholder, 1 MiB response",
        "",
        "`indexing.tool_results.compress_result` on a `CallToolResult` holding 1 MiB of text "
        f"(through `asyncio.to_thread`, as the gateway awaits it); {plan.placeholder_repeats} "
        "runs each. It returns the placeholder once the text is chunked and writes the store "
        "in the background; *searchable* = until the label can be read (reads wait for the "
        "write).",
        "",
        "| corpus | median ms | max ms | searchable, median ms |",
        "|---|---:|---:|---:|",
    ]
    for kind, (median, worst, searchable) in placeholders.items():
        out.append(f"| {kind} | {median:.0f} | {worst:.0f} | {searchable:.0f} |")
    worst_median = max(median for median, _, _ in placeholders.values())
    out += [
        "",
        f"Target <= {TARGET_PLACEHOLDER_MS:g} ms: "
        f"{verdict(worst_median <= TARGET_PLACEHOLDER_MS)} (worst median {worst_median:.0f} ms).",
        "",
        "### IndexSearch latency",
        "",
        "One store filled with 1 MiB responses (markdown, json, code, logs in turn); "
        f"`format_search(store, [query])` for {plan.queries} queries of 1, 2 or 4 words taken "
        "from the indexed text (fixed seed), without and with `source=` one label. "
        "SQLite memory = `sqlite3_memory_used()` growth for the whole store.",
        "",
        "| indexed | responses | p50 ms | p99 ms | p50 ms (source) | p99 ms (source) "
        "| SQLite memory |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in searches:
        memory_text = (
            "n/a"
            if s.sqlite_bytes is None
            else (f"{s.sqlite_bytes / MIB:.0f} MiB ({s.sqlite_bytes / s.size:.1f}x)")
        )
        out.append(
            f"| {s.size / MIB:.0f} MiB | {s.documents} | {s.p50_ms:.2f} | {s.p99_ms:.2f} "
            f"| {s.source_p50_ms:.2f} | {s.source_p99_ms:.2f} | {memory_text} |"
        )
    largest = searches[-1]
    out += [
        "",
        f"Target p50 <= {TARGET_SEARCH_P50_MS:g} ms at {largest.size / MIB:.0f} MiB: "
        f"{verdict(largest.p50_ms <= TARGET_SEARCH_P50_MS)} ({largest.p50_ms:.2f} ms).",
        "",
        "### Memory per indexed byte",
        "",
        "One document indexed in a fresh child process, after a 64 KiB warm-up document of "
        "the same kind, chunked in the main thread and written by a writer thread, as the "
        "gateway does. *peak RSS* = growth of the whole "
        "process's peak resident memory while indexing (VmHWM, /proc/self/status), with "
        f"glibc's malloc set up as `make serve` runs the gateway ({_environment_text()}); "
        "*default malloc* = the same without that setting (an arena per thread); *SQLite "
        "peak / kept* = SQLite's allocator (`sqlite3_memory_highwater` / `sqlite3_memory_used` "
        "via ctypes) at its peak and after indexing; *text kept* = the document's UTF-8 text "
        "as the store holds it in Python; "
        "*Python peak* = tracemalloc peak of the Python heap (chunking, lines, placeholder, "
        "the text kept; measured in a second run). All divided by the input bytes.",
        "",
        "| corpus | size | peak RSS | peak RSS, default malloc | SQLite peak | SQLite kept "
        "| text kept | Python peak |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst_peak = 0.0
    for kind, target, m in memory:
        size = int(m["bytes"])
        if m["peak_rss"] is not None:
            worst_peak = max(worst_peak, m["peak_rss"] / size)
        out.append(
            f"| {kind} | {size_name(target)} | {ratio(m['peak_rss'], size)} "
            f"| {ratio(m['default_malloc_peak_rss'], size)} "
            f"| {ratio(m['sqlite_peak'], size)} | {ratio(m['sqlite_retained'], size)} "
            f"| {ratio(m['text_kept'], size)} | {ratio(m['python_peak'], size)} |"
        )
    breakdown = [(kind, target, m) for kind, target, m in memory if m.get("tables")]
    if breakdown:
        names = sorted({n for _, _, m in breakdown for n in m["tables"]}, key=_table_order)
        out += [
            "",
            "Where SQLite's bytes go after indexing (dbstat page bytes per input byte; "
            "the FTS tables with their shadow tables):",
            "",
            "| corpus | size | " + " | ".join(names) + " |",
            "|---|---:|" + "---:|" * len(names),
        ]
        for kind, target, m in breakdown:
            cells = [ratio(m["tables"].get(n), int(m["bytes"])) for n in names]
            out.append(f"| {kind} | {size_name(target)} | " + " | ".join(cells) + " |")
    out += [
        "",
        f"Target <= {TARGET_MEMORY_RATIO:g}x (peak RSS): "
        f"{verdict(worst_peak <= TARGET_MEMORY_RATIO)} (worst {worst_peak:.1f}x).",
    ]
    return "\n".join(out)


# --------------------------------------------------------------------------- main


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument(
        "--memory-probe", nargs=2, metavar=("CORPUS", "BYTES"), help=argparse.SUPPRESS
    )
    return parser.parse_args()


def main() -> None:
    options = parse_args()
    tune_thread_switching()  # as the gateway does (indexing.apps)
    if options.memory_probe:
        kind, target = options.memory_probe
        print(json.dumps(memory_probe(kind, int(target))))
        return
    plan = QUICK if options.quick else FULL
    started = time.perf_counter()
    rows = throughput_rows(plan)
    placeholders = {kind: placeholder_latency(kind, plan.placeholder_repeats) for kind in FORMATS}
    print("  placeholders done", file=sys.stderr, flush=True)
    searches = search_latency(plan)
    memory = []
    for size in plan.memory_sizes:
        for kind in FORMATS:
            probe = run_memory_probe(kind, size)
            default = run_memory_probe(kind, size, server_malloc=False)
            memory.append((kind, size, {**probe, "default_malloc_peak_rss": default["peak_rss"]}))
            print(f"  memory {kind} {size_name(size)} done", file=sys.stderr, flush=True)
    text = report(plan, options.quick, rows, placeholders, searches, memory)
    print(text)
    print(f"\n(total {time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if not options.no_docs:
        _docs.write_section(SECTION, text)
        print(f"updated {_docs.relative(_docs.DOCS)}", file=sys.stderr)


if __name__ == "__main__":
    main()
