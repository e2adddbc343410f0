"""Catalog benchmark: how the catalog plan shrinks 17 real catalogs, and can tools be found?

Run from the repository root (well under a minute):

    .venv/bin/python benchmarks/catalog.py [--no-docs] [--runs 7] [--sessions 10]

1. The 17 captured catalogs of `tests/fixtures/catalogs/` become upstream listings and go
   through the gateway's own path: `gateway.catalog.merged.merge` (exposed names `<server>__<tool>`
   from `ExposedMap`) and `plan_for` (`servers_of(strip_output=True)`, `plan_catalog` with the
   default threshold and the IndexSearch/IndexRead tools as fixed tools). Each phase is
   instrumented to report the bytes, visible and deferred tools after it.
2. Tool finding: every catalog document of `CatalogView.documents()` is indexed into a
   `SessionStore` as `SessionIndex.index_catalog` does; each intent of
   `benchmarks/catalog_intents.json` is searched with `store.search(intent, source="mcp/",
   limit=5)`, what one IndexSearch query runs, and hits map back to exposed tool names.
3. Speed and memory: the same per-session work (merge, plan, documents, index) for a synthetic
   1,000-tool catalog (the real servers replicated as `<server>-r<k>`) and for ~300 tools.

The markdown goes to stdout and into docs/benchmarks.md between `<!-- catalog:start -->` and
`<!-- catalog:end -->`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import gateway` must find the package
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")

import django  # noqa: E402

django.setup()  # gateway.catalog.merged imports the client models (no database is touched)

import mcp_types as types  # noqa: E402

from benchmarks import _docs  # noqa: E402
from clients.context_settings import resolve_settings  # noqa: E402
from gateway.catalog.merged import MergedCatalog, merge, plan_for  # noqa: E402
from gateway.catalog.upstream_listing import UpstreamListing  # noqa: E402
from gateway.catalog.view import CatalogView  # noqa: E402
from gateway.sessions.identity import ClientIdentity  # noqa: E402
from gateway.upstreams.spec import UpstreamSpec  # noqa: E402
from indexing.api import catalog_plan  # noqa: E402
from indexing.api.catalog_plan import CatalogPlan  # noqa: E402
from indexing.api.session_store import index_documents  # noqa: E402
from indexing.engine.store import Hit, SessionStore  # noqa: E402
from indexing.engine.text import one_line  # noqa: E402

SECTION = "catalog"
CATALOGS = ROOT / "tests" / "fixtures" / "catalogs"
INTENTS = Path(__file__).resolve().parent / "catalog_intents.json"
PHASES = (
    "_summarise_instructions",
    "_shorten_tools",
    "_defer_servers",
    "_defer_others",
    "_minimal",
)
TARGET_RECALL_AT_5 = 0.9
TARGET_MS = 100.0
LARGE_TOOLS = 1_000
SESSION_TOOLS = 300
DEEP = 20  # how far down a miss is looked for


# --------------------------------------------------------------------------- catalogs


def fixture_listings(replicas: int = 0, total: int | None = None) -> dict[str, UpstreamListing]:
    """The captured catalogs as upstream listings; replicas copy them as `<server>-r<k>`.

    With `total`, tools are taken in order until there are exactly that many (the last
    replicated server may be cut short); the 17 real servers always come whole.
    """
    listings: dict[str, UpstreamListing] = {}
    count = 0
    for k in range(replicas + 1):
        for path in sorted(CATALOGS.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            name = path.stem if k == 0 else f"{path.stem}-r{k}"
            tools = [types.Tool.model_validate(t) for t in data["tools"]]
            if total is not None and k > 0:
                tools = tools[: max(0, total - count)]
                if not tools:
                    return listings
            listings[name] = UpstreamListing(
                spec=UpstreamSpec(name=name, transport="stdio", command="replay"),
                tools=tools,
                prompts=[types.Prompt.model_validate(p) for p in data["prompts"]],
                resources=[types.Resource.model_validate(r) for r in data["resources"]],
                templates=[
                    types.ResourceTemplate.model_validate(t) for t in data["resourceTemplates"]
                ],
                instructions=data["instructions"],
                title=data["serverInfo"].get("title") or data["serverInfo"]["name"],
            )
            count += len(tools)
    return listings


def identity() -> ClientIdentity:
    """A client that may use every upstream, with the built-in default settings."""
    return ClientIdentity(
        id=0,
        name="benchmark",
        allowed_upstreams=None,
        settings=resolve_settings(None, None),
    )


# --------------------------------------------------------------------------- phases


@dataclass
class PhaseRow:
    phase: str
    size: int
    visible: int
    deferred: int
    servers_deferred: int
    others_visible: int  # prompts + resources + templates still listed


def _row(phase: str, plan: CatalogPlan, size: int) -> PhaseRow:
    others = len(plan.prompts) + len(plan.resources) + len(plan.templates)
    return PhaseRow(
        phase, size, len(plan.tools), len(plan.deferred_tools), len(plan.deferred_servers), others
    )


@contextlib.contextmanager
def instrumented(rows: list[PhaseRow]) -> Iterator[None]:
    """Record the budget after every phase `plan_catalog` runs (its own code, wrapped)."""
    originals = {name: getattr(catalog_plan, name) for name in PHASES}

    def wrap(function: Callable) -> Callable:
        def phase(plan, servers, budget, threshold):
            if not rows:
                rows.append(_row("(full catalog)", plan, budget.size()))
            function(plan, servers, budget, threshold)
            rows.append(_row(function.__doc__.split(":")[0], plan, budget.size()))

        phase.__doc__ = function.__doc__  # plan_catalog names phases by their docstring
        return phase

    try:
        for name, function in originals.items():
            setattr(catalog_plan, name, wrap(function))
        yield
    finally:
        for name, function in originals.items():
            setattr(catalog_plan, name, function)


def phase_table(catalog: MergedCatalog, who: ClientIdentity) -> tuple[CatalogPlan, list[PhaseRow]]:
    rows: list[PhaseRow] = []
    with instrumented(rows):
        plan = plan_for(who, catalog)
    assert plan is not None
    reference = plan_for(who, catalog)  # uninstrumented: must agree
    assert reference is not None and reference.phases == plan.phases
    if plan.bytes_after != rows[-1].size:  # deferred tools listed again while they fit
        rows.append(_row("refill", plan, plan.bytes_after))
    assert reference.bytes_after == plan.bytes_after == rows[-1].size
    assert plan.bytes_before == rows[0].size
    return plan, rows


# --------------------------------------------------------------------------- tool finding


@dataclass
class Outcome:
    intent: str
    expected: list[str]
    found: list[str | None]  # exposed tool per hit, None for a non-tool hit, best first
    hits: list[Hit] = field(default_factory=list)
    rank: int | None = None  # 1-based rank of the first correct hit within DEEP

    def at(self, k: int) -> bool:
        return self.rank is not None and self.rank <= k

    @property
    def split(self) -> str:
        return _docs.split_of(self.intent)


def recall_at(outcomes: list[Outcome], k: int) -> float:
    return sum(o.at(k) for o in outcomes) / len(outcomes) if outcomes else 0.0


def mrr(outcomes: list[Outcome]) -> float:
    """Mean reciprocal rank of the first correct hit within DEEP (0 when below)."""
    return sum(1 / o.rank for o in outcomes if o.rank) / len(outcomes) if outcomes else 0.0


def split_row(name: str, outcomes: list[Outcome], plan: CatalogPlan) -> str:
    """A table row: recall and MRR of `outcomes`, and recall@5 of those whose tools are all
    deferred."""
    deferred = [o for o in outcomes if all(tool in plan.deferred_tools for tool in o.expected)]
    return (
        f"| {name} | {len(outcomes)} | **{recall_at(outcomes, 1):.2f}** "
        f"| **{recall_at(outcomes, 5):.2f}** | {recall_at(outcomes, 10):.2f} "
        f"| {mrr(outcomes):.2f} | {recall_at(deferred, 5):.2f} "
        f"({len(deferred)} requests) |"
    )


def index_catalog(view: CatalogView) -> SessionStore:
    """Index the view's documents as `SessionIndex.index_catalog` does."""
    return index_documents(view.documents(), SessionStore())


def exposed_tool(catalog: MergedCatalog, label: str) -> str | None:
    """`mcp/<server>/tool/<name>` -> `<server>__<name>` as exposed; None for other labels."""
    parts = label.split("/", 3)
    if len(parts) != 4 or parts[0] != "mcp" or parts[2] != "tool":
        return None
    return catalog.tool_names.exposed(parts[1], parts[3])


def find_tools(catalog: MergedCatalog, store: SessionStore) -> list[Outcome]:
    intents = json.loads(INTENTS.read_text(encoding="utf-8"))["intents"]
    outcomes = []
    for entry in intents:
        unknown = [name for name in entry["tools"] if name not in catalog.allowed_tools]
        if unknown:
            raise SystemExit(f"{INTENTS.name}: {entry['q']!r} names unknown tools {unknown}")
        hits = store.search(entry["q"], source="mcp/", limit=DEEP)
        found = [exposed_tool(catalog, hit.label) for hit in hits]
        rank = next((i for i, name in enumerate(found, 1) if name in entry["tools"]), None)
        outcomes.append(Outcome(entry["q"], entry["tools"], found, hits, rank))
    return outcomes


def limited_hits_agree(store: SessionStore, outcomes: list[Outcome]) -> None:
    """The top 5 of a limit=20 search are what limit=5 (IndexSearch's default) returns."""
    for outcome in outcomes:
        top = [hit.chunk_id for hit in store.search(outcome.intent, source="mcp/", limit=5)]
        assert top == [hit.chunk_id for hit in outcome.hits[:5]], outcome.intent


# --------------------------------------------------------------------------- speed and memory


@dataclass
class Session:
    catalog: MergedCatalog
    plan: CatalogPlan
    view: CatalogView
    store: SessionStore
    documents: int
    ms: dict[str, float]


def open_session(listings: dict[str, UpstreamListing], who: ClientIdentity) -> Session:
    """One session's catalog work, as `GatewaySession` does it, timed step by step."""
    ms: dict[str, float] = {}
    started = time.perf_counter()
    catalog = merge(who, listings)
    ms["merge"] = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    plan = plan_for(who, catalog)
    ms["plan"] = (time.perf_counter() - started) * 1000
    assert plan is not None
    started = time.perf_counter()
    view = CatalogView(catalog, plan)
    documents = view.documents()
    ms["documents"] = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    store = index_documents(documents, SessionStore())
    ms["index"] = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    store.copy().close()
    ms["copy"] = (time.perf_counter() - started) * 1000
    return Session(catalog, plan, view, store, len(documents), ms)


def timed_sessions(listings: dict[str, UpstreamListing], runs: int) -> dict[str, float]:
    """Median milliseconds of each step over `runs` fresh sessions (after one warm-up)."""
    who = identity()
    open_session(listings, who).store.close()
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        session = open_session(listings, who)
        for step, value in session.ms.items():
            samples.setdefault(step, []).append(value)
        samples.setdefault("total", []).append(sum(session.ms.values()) - session.ms["copy"])
        work = session.ms["plan"] + session.ms["documents"] + session.ms["index"]
        samples.setdefault("plan+index", []).append(work)
        session.store.close()
    result = {step: statistics.median(values) for step, values in samples.items()}
    result["best plan+index"] = min(samples["plan+index"])
    return result


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def session_memory(listings: dict[str, UpstreamListing], sessions: int) -> dict[str, float]:
    """tracemalloc peak of one session's work; RSS growth per session kept alive."""
    who = identity()
    open_session(listings, who).store.close()  # warm caches (imports, SQLite, pydantic)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    session = open_session(listings, who)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    session.store.close()
    del session
    gc.collect()
    kept = []
    rss_before = rss_bytes()
    for _ in range(sessions):
        kept.append(open_session(listings, who))
    gc.collect()
    rss_after = rss_bytes()
    result = {
        "peak": peak - before,
        "retained": current - before,
        "rss": (rss_after - rss_before) / sessions,
        "index_bytes": kept[0].store.total_bytes,
        "documents": kept[0].documents,
    }
    for session in kept:
        session.store.close()
    return result


# --------------------------------------------------------------------------- report


def kb(size: float) -> str:
    return f"{size / 1024:,.1f} KB"


def section(hit: Hit) -> str:
    """Which part of a catalog document a hit is: its heading, or a `## ` section."""
    return hit.title.rsplit(" > ", 1)[1] if " > " in hit.title else "heading"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def report(
    catalog: MergedCatalog,
    plan: CatalogPlan,
    rows: list[PhaseRow],
    outcomes: list[Outcome],
    large: tuple[int, dict[str, float]],
    small: tuple[int, dict[str, float]],
    memory: dict[str, float],
    options: argparse.Namespace,
) -> str:
    threshold = identity().settings.catalog_threshold
    tools = len(catalog.tools)
    out = [
        "## Catalog plan and tool search",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python benchmarks/catalog.py "
        f"--runs {options.runs} --sessions {options.sessions}`.",
        "",
        f"### Phases ({len(catalog.upstreams)} real servers, {tools} tools, threshold "
        f"{threshold:,} bytes)",
        "",
        f"The captured catalogs of `tests/fixtures/catalogs/` ({len(catalog.prompts)} prompts, "
        f"{len(catalog.resources)} resources, {len(catalog.templates)} templates) through "
        "`gateway.catalog.merged.merge` and `plan_for` (output schemas stripped, IndexSearch and "
        "IndexRead as fixed tools). Bytes = tools/list + prompts + resources + templates + "
        "instructions + directory, as `plan_catalog` counts them; each phase runs only while "
        "the catalog is still too big.",
        "",
        "| phase | bytes after | change | tools visible | tools deferred | servers deferred "
        "| prompts+resources listed |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    previous = rows[0].size
    for row in rows:
        change = "" if row is rows[0] else f"{(row.size - previous) / previous:+.0%}"
        out.append(
            f"| {row.phase} | {row.size:,} | {change} | {row.visible} | {row.deferred} "
            f"| {row.servers_deferred} | {row.others_visible} |"
        )
        previous = row.size
    fits = plan.bytes_after <= threshold
    out += [
        "",
        f"Final catalog: **{plan.bytes_after:,} bytes** ({kb(plan.bytes_after)}), "
        + ("**fits**" if fits else "**does not fit**")
        + f" the {threshold:,}-byte budget; phases applied: {', '.join(plan.phases) or 'none'}. "
        f"Still visible: {', '.join(sorted({t.name.split('__')[0] for t in plan.tools}))}. "
        f"Deferred servers: {', '.join(plan.deferred_servers) or 'none'}.",
        "",
    ]

    r5 = recall_at([o for o in outcomes if o.split == "test"], 5)
    top = [hit for o in outcomes for hit in o.hits[:5]]
    parts = Counter(section(hit) for hit in top)
    distinct = sum(len({hit.label for hit in o.hits[:5]}) for o in outcomes)
    out += [
        "### Finding tools with IndexSearch, keywords only",
        "",
        "What IndexSearch ranks by where no embedding model is installed (and, elsewhere, "
        "until a catalog's embeddings are computed); with the model, hybrid search is the "
        "default: see *Hybrid tool search* below, row (e).",
        "",
        f"{len(outcomes)} requests worded as a user would ask ({INTENTS.name}; a request "
        "accepts several tools only where several servers genuinely do the same job). All "
        f"{len(catalog.tools)} tool documents (plus instructions, prompts and deferred "
        "resources) from `CatalogView.documents()` are indexed into one `SessionStore`; a "
        'request is found at rank k when hit k of `store.search(request, source="mcp/", '
        "limit=5)` (one IndexSearch query) is a correct tool's document. Hits are chunks, so "
        "one tool can take several of the five places. The requests are split by a hash of "
        "their text into dev (tuned on) and test (only reported; its misses are not shown).",
        "",
        "| split | requests | recall@1 | recall@5 | recall@10 | MRR@20 | recall@5, only "
        "requests whose tools are deferred |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *(
            split_row(name, [o for o in outcomes if split in (None, o.split)], plan)
            for name, split in (("dev", "dev"), ("test", "test"), ("all", None))
        ),
        "",
        f"Target recall@5 >= {TARGET_RECALL_AT_5:g} on test by keywords alone: "
        + ("**met**." if r5 >= TARGET_RECALL_AT_5 else "**missed**.")
        + f" Of the {len(top)} top-5 hits, {parts.get('heading', 0) / len(top):.0%} are a "
        f"tool's heading and description, {parts.get('Parameters', 0) / len(top):.0%} its "
        f"parameter list, {parts.get('Input schema', 0) / len(top):.0%} its raw JSON input "
        f"schema and {distinct / len(outcomes):.1f} distinct documents per request on average.",
        "",
    ]
    misses = [o for o in outcomes if o.split == "dev" and not o.at(5)]
    if misses:
        out += [
            f"Misses of dev (rank of the first correct tool within the top {DEEP}, - if not "
            "there):",
            "",
            "| request | expected | rank | top 3 hits instead |",
            "|---|---|---:|---|",
        ]
        for o in misses:
            instead = ", ".join(
                f"{name or one_line(hit.label, 40)} ({section(hit)})"
                for name, hit in zip(o.found[:3], o.hits[:3], strict=True)
            )
            out.append(
                f"| {cell(o.intent)} | {', '.join(o.expected)} | {o.rank or '-'} "
                f"| {cell(instead) or 'no hits'} |"
            )
        out.append("")
    else:
        out += ["No misses within the top 5.", ""]

    out += [
        "### Speed and memory per session",
        "",
        f"Median of {options.runs} fresh sessions after a warm-up. *merge* = "
        "`gateway.catalog.merged.merge` (exposed names), *plan* = `plan_for` (`servers_of` + "
        "`plan_catalog`), *documents* = `CatalogView.documents()`, *index* = a new "
        "`SessionStore` filled by `indexing.api.session_store.index_documents` (one transaction, "
        "no trigrams), as the gateway does. Synthetic catalogs replicate the real servers as "
        "`<server>-r<k>` (same tools, other exposed names). The gateway does this once per "
        "client and catalog version; each later session of that client copies the indexed "
        "catalog instead (*copy*, SQLite's backup API).",
        "",
        "| catalog | merge ms | plan ms | documents ms | index ms | plan + documents + index ms "
        "| best run ms | all steps ms | later sessions: copy ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for count, ms in (large, small):
        out.append(
            f"| {count:,} tools | {ms['merge']:.1f} | {ms['plan']:.1f} | {ms['documents']:.1f} "
            f"| {ms['index']:.1f} | {ms['plan+index']:.1f} | {ms['best plan+index']:.1f} "
            f"| {ms['total']:.1f} | {ms['copy']:.1f} |"
        )
    big = large[1]
    plan_index = big["plan+index"]
    out += [
        "",
        f"Target: plan + index of {large[0]:,} tools < {TARGET_MS:g} ms: "
        + ("**met**" if plan_index < TARGET_MS else "**missed**")
        + f" ({plan_index:.1f} ms; plan {big['plan']:.1f} ms, index "
        f"{big['documents'] + big['index']:.1f} ms of which rendering the documents "
        f"{big['documents']:.1f} ms).",
        "",
        f"Memory of one {small[0]}-tool session ({memory['documents']} documents, "
        f"{kb(memory['index_bytes'])} of indexed text): tracemalloc peak "
        f"**{kb(memory['peak'])}** (Python objects still held afterwards "
        f"{kb(memory['retained'])}; SQLite allocates outside tracemalloc); RSS growth "
        f"**{kb(memory['rss'])} per session**, averaged over {options.sessions} sessions "
        "kept open at once (includes SQLite's in-memory database and page cache).",
    ]
    return "\n".join(out).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--runs", type=int, default=7, help="timed sessions per catalog size")
    parser.add_argument("--sessions", type=int, default=10, help="sessions kept for RSS")
    parser.add_argument("--verbose", action="store_true", help="print every request's rank")
    options = parser.parse_args()
    started = time.perf_counter()

    who = identity()
    catalog = merge(who, fixture_listings())
    plan, rows = phase_table(catalog, who)
    view = CatalogView(catalog, plan)
    store = index_catalog(view)
    outcomes = find_tools(catalog, store)
    limited_hits_agree(store, outcomes)
    if options.verbose:
        for o in outcomes:
            print(f"{o.rank or '-':>3}  {o.intent}  ->  {o.found[:3]}", file=sys.stderr)

    real = len(catalog.tools)
    large_listings = fixture_listings(replicas=-(-LARGE_TOOLS // real), total=LARGE_TOOLS)
    small_listings = fixture_listings(replicas=1, total=SESSION_TOOLS)
    large_count = sum(len(listing.tools) for listing in large_listings.values())
    small_count = sum(len(listing.tools) for listing in small_listings.values())
    large = (large_count, timed_sessions(large_listings, options.runs))
    small = (small_count, timed_sessions(small_listings, options.runs))
    memory = session_memory(small_listings, options.sessions)

    text = report(catalog, plan, rows, outcomes, large, small, memory, options)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)
        print(f"updated {_docs.relative(_docs.DOCS)}", file=sys.stderr)
    print(f"finished in {time.perf_counter() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
