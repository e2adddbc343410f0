"""Hybrid tool finding: does BM25 + sentence embeddings find tools better than BM25 alone?

Run from the repository root, with the all-MiniLM-L6-v2 folder at
`$LOCALROUTER_EMBEDDING_MODEL` (or var/models/all-MiniLM-L6-v2, fetched by `make test`):

    .venv/bin/python benchmarks/catalog_hybrid.py [--runs 3] [--text heading|full]

The catalog, the documents and the intents are `benchmarks/catalog.py`'s: the 17 captured
catalogs merged and planned as the gateway does, every `CatalogView.documents()` document in a
`SessionStore`, the requests of `catalog_intents.json` (split into dev and test by a hash of
their text; misses are listed for dev only). Rankings of tools per request:

(a) lexical: `store.search(request, source="mcp/", limit=20)` as one IndexSearch query runs it,
    hits mapped to tools (chunks, so one tool can take several places: the catalog benchmark's
    number), and the same list with each tool kept at its first place only;
(b) embeddings: each tool document's heading and description (`--text full`: the whole
    document, parameters included), truncated to the model's 256 tokens, embedded once; the
    request embedded; tools by cosine;
(c) hybrid: (a) per tool (from a limit=40 search) and (b) fused by reciprocal rank (k=60, as
    the store fuses its word and trigram rankings);
(d) the same with both rankings cut to their top 20 first, as when each retriever hands over a
    fixed number of candidates. (b) ranks every tool, so in (c) any lexical hit, however weak,
    also collects a dense score and outranks a tool that only the embeddings found.

`--sweep` adds recall@5 of weighted fusions (dense weight x depth x k) over the dev requests.

The markdown goes to stdout and into docs/benchmarks.md (section `catalog_hybrid`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]
# One BLAS thread: on a busy 2-CPU machine OpenBLAS's spinning threads made the catalog 2-4x
# slower (6 s against 10-26 s for 254 tools). Must be set before numpy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from benchmarks import _docs  # noqa: E402
from benchmarks.catalog import (  # noqa: E402
    DEEP,
    INTENTS,
    TARGET_RECALL_AT_5,
    CatalogView,
    cell,
    exposed_tool,
    fixture_listings,
    identity,
    index_catalog,
    merge,
    plan_for,
    rss_bytes,
)
from indexing.engine import hybrid as hybrid_module  # noqa: E402
from indexing.engine.embeddings import (  # noqa: E402
    Embedder,
    cosine_ranking,
)
from indexing.engine.fusion import reciprocal_rank_fusion  # noqa: E402
from indexing.engine.hybrid import (  # noqa: E402
    DENSE_WEIGHT,
    DEPTH,
    FUSION_K,
    TOKEN_MATCHED,
    CatalogVectors,
    hybrid_hits,
)
from indexing.engine.model_folder import model_folder_ready  # noqa: E402
from indexing.engine.search import Ranked, search_with_labels  # noqa: E402
from localrouter import config  # noqa: E402

FUSION_DEPTH = 40  # lexical hits fused with the embedding ranking
CUT_DEPTH = 20  # (d): candidates taken from each ranking


def embedding_text(document: str, mode: str) -> str:
    """What is embedded for a tool document: heading + description, or all of it."""
    if mode == "full":
        return document
    return document.split("\n## Parameters", 1)[0].strip()


def tool_ranking(found: list[str | None]) -> list[str]:
    """Tools in order of their first hit, non-tool hits dropped."""
    return list(dict.fromkeys(name for name in found if name is not None))


def rank_of(ranking: list[str | None], expected: list[str]) -> int | None:
    return next((i for i, name in enumerate(ranking[:DEEP], 1) if name in expected), None)


@dataclass
class Method:
    name: str
    ranks: list[int | None]

    def only(self, keep: list[bool]) -> Method:
        return Method(self.name, [r for r, kept in zip(self.ranks, keep, strict=True) if kept])

    def recall(self, k: int) -> float:
        return sum(r is not None and r <= k for r in self.ranks) / max(1, len(self.ranks))

    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r is not None) / max(1, len(self.ranks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed embeddings of the catalog")
    parser.add_argument("--text", choices=("heading", "full"), default="heading")
    parser.add_argument("--model", type=Path, default=None, help="model folder")
    parser.add_argument("--verbose", action="store_true", help="print every dev request's ranks")
    parser.add_argument("--sweep", action="store_true", help="recall@5 of weighted fusions")
    options = parser.parse_args()
    path = options.model or config.embedding_model_dir(ROOT)
    if not model_folder_ready(path):
        raise SystemExit("no model: set LOCALROUTER_EMBEDDING_MODEL to the all-MiniLM-L6-v2 folder")

    who = identity()
    catalog = merge(who, fixture_listings())
    plan = plan_for(who, catalog)
    assert plan is not None
    view = CatalogView(catalog, plan)
    documents = view.documents()
    store = index_catalog(view)
    tools = [
        (name, embedding_text(text, options.text))
        for label, text in documents
        if (name := exposed_tool(catalog, label)) is not None
    ]
    names = [name for name, _ in tools]
    intents = json.loads(INTENTS.read_text(encoding="utf-8"))["intents"]

    gc.collect()
    rss_before = rss_bytes()
    started = time.perf_counter()
    embedder = Embedder.from_path(path)
    load_s = time.perf_counter() - started
    rss_model = rss_bytes() - rss_before

    texts = [text for _, text in tools]
    truncated = sum(embedder.tokens(text) >= embedder.max_tokens for text in texts)
    catalog_s = []
    for _ in range(options.runs):
        started = time.perf_counter()
        matrix = embedder.embed(texts)
        catalog_s.append(time.perf_counter() - started)
    rss_after_catalog = rss_bytes() - rss_before

    embedder.embed([intents[0]["q"]])  # warm-up
    query_ms, vectors = [], []
    for entry in intents:
        started = time.perf_counter()
        vectors.append(embedder.embed([entry["q"]])[0])
        query_ms.append((time.perf_counter() - started) * 1000)

    methods = {
        key: Method(label, [])
        for key, label in (
            ("lexical", "(a) lexical, as today (chunk hits)"),
            ("lexical_tools", "(a') lexical, one place per tool"),
            ("embedding", "(b) embeddings only"),
            ("hybrid", "(c) RRF hybrid (a') + (b), k=60"),
            ("cut", f"(d) RRF hybrid, both cut to top {CUT_DEPTH}, k=60"),
            (
                "gateway",
                "(e) IndexSearch with vector_search on (`indexing.engine.hybrid`: cosine's "
                f"first {TOKEN_MATCHED} re-scored with the token match, top {DEPTH} of each, "
                f"embeddings weighted {DENSE_WEIGHT:g}x, k={FUSION_K})",
            ),
        )
    }
    with tempfile.TemporaryDirectory() as folder:  # as the gateway keeps them: on disk
        hybrid_module._vector_cache.clear()
        started = time.perf_counter()
        CatalogVectors(documents, embedder, Path(folder))
        computed_s = time.perf_counter() - started
        hybrid_module._vector_cache.clear()  # as after a restart
        started = time.perf_counter()
        served = CatalogVectors(documents, embedder, Path(folder))
        from_disk_s = time.perf_counter() - started
    answer_bytes = {"lexical": [], "gateway": []}
    ranking_ms = []
    for entry in intents:
        started = time.perf_counter()
        served.rankings([entry["q"]], "mcp/")
        ranking_ms.append((time.perf_counter() - started) * 1000)
    rows, pairs = [], []
    for entry, vector in zip(intents, vectors, strict=True):
        expected = entry["tools"]
        hits = store.search(entry["q"], source="mcp/", limit=FUSION_DEPTH)
        found = [exposed_tool(catalog, hit.label) for hit in hits]
        lexical = tool_ranking(found)
        dense = cosine_ranking(vector, matrix, names)
        hybrid = reciprocal_rank_fusion([lexical, dense])
        cut = reciprocal_rank_fusion([lexical[:CUT_DEPTH], dense[:CUT_DEPTH]])
        pairs.append((lexical, dense, expected))
        ranks = {
            "lexical": rank_of(found[:DEEP], expected),
            "lexical_tools": rank_of(lexical, expected),
            "embedding": rank_of(dense, expected),
            "hybrid": rank_of(hybrid, expected),
            "cut": rank_of(cut, expected),
            "gateway": rank_of(
                [
                    exposed_tool(catalog, hit.label)
                    for hit in hybrid_hits(store, served, [entry["q"]], "mcp/", DEEP)[0]
                ],
                expected,
            ),
        }
        for key, rank in ranks.items():
            methods[key].ranks.append(rank)
        rows.append((entry["q"], expected, ranks, hybrid[:3]))
        for key, rank in (("lexical", None), ("gateway", served_ranker(store, served))):
            answer, _ = search_with_labels(store, [entry["q"]], "mcp/", None, rank)
            answer_bytes[key].append(len(answer.encode()))
        if options.verbose and _docs.split_of(entry["q"]) == "dev":  # test misses stay unseen
            print(entry["q"], ranks, hybrid[:3], file=sys.stderr)

    out = [
        "## Hybrid tool search (BM25 + all-MiniLM-L6-v2)",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python benchmarks/catalog_hybrid.py "
        f"--runs {options.runs} --text {options.text}` "
        f"(OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}).",
        "",
        f"{len(intents)} requests over {len(names)} tools of {len(catalog.upstreams)} captured "
        f"catalogs. Embedded text per tool: "
        + ("the whole tool document" if options.text == "full" else "heading + description")
        + f", cut to {embedder.max_tokens} tokens ({truncated} of {len(texts)} were cut).",
        "",
        "| method | split | requests | recall@1 | recall@5 | recall@10 | MRR@20 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    splits = [_docs.split_of(entry["q"]) for entry in intents]
    for method in methods.values():
        for split in _docs.SPLITS:
            part = method.only([s == split for s in splits])
            out.append(
                f"| {method.name} | {split} | {len(part.ranks)} | {part.recall(1):.2f} "
                f"| **{part.recall(5):.2f}** | {part.recall(10):.2f} | {part.mrr():.2f} |"
            )
    on_test = [s == "test" for s in splits]
    served_test = methods["gateway"].only(on_test)
    test_r5 = {key: method.only(on_test).recall(5) for key, method in methods.items()}
    verdicts = [
        f"{key} {'**met**' if test_r5[key] >= TARGET_RECALL_AT_5 else '**missed**'}"
        for key in ("lexical", "embedding", "hybrid", "cut", "gateway")
    ]
    lexical_test = methods["lexical"].only(on_test)
    out += [
        "",
        "What the agent gets (test split): a catalog's vectors are computed as soon as a "
        "catalog version is complete, and kept on disk by content digest. Until they are, "
        "IndexSearch ranks by keywords (a); once they are, as (e).",
        "",
        "| moment of search | ranked as | recall@5 (95% interval) | bytes per answer |",
        "|---|---|---:|---:|",
        f"| within {computed_s:.0f} s of a catalog change (its vectors being computed) | (a) "
        f"| {lexical_test.recall(5):.2f} ({_docs.recall_interval(lexical_test.ranks, 5)}) "
        f"| {statistics.fmean(answer_bytes['lexical']):,.0f} |",
        f"| later, and at once after a restart (vectors read from disk in "
        f"{from_disk_s * 1000:,.0f} ms) | (e) "
        f"| {served_test.recall(5):.2f} ({_docs.recall_interval(served_test.ranks, 5)}) "
        f"| {statistics.fmean(answer_bytes['gateway']):,.0f} |",
        "",
        "Bytes per answer: IndexSearch's text for one request at its default limit (5 hits), "
        "over all requests.",
        "",
        f"Target recall@5 >= {TARGET_RECALL_AT_5:g} on test: " + ", ".join(verdicts) + ".",
        "IndexSearch as served (e), 95% intervals over the test requests (bootstrap, 2,000 "
        f"draws): recall@1 {_docs.recall_interval(served_test.ranks, 1)}, recall@5 "
        f"{_docs.recall_interval(served_test.ranks, 5)}.",
        "",
        "| cost | value |",
        "|---|---:|",
        f"| load the model (safetensors + tokenizer) | {load_s * 1000:,.0f} ms |",
        f"| model weights held (float32) | {embedder.nbytes / 2**20:,.1f} MiB |",
        f"| RSS growth: model loaded | {rss_model / 2**20:,.1f} MiB |",
        f"| RSS growth: model + {len(names)} embeddings computed | "
        f"{rss_after_catalog / 2**20:,.1f} MiB |",
        f"| embed the {len(names)}-tool catalog (median of {options.runs}) | "
        f"{statistics.median(catalog_s) * 1000:,.0f} ms |",
        f"| catalog vectors ({len(names)} x {embedder.dimensions} float32) | "
        f"{matrix.nbytes / 1024:,.0f} KB |",
        f"| embed one request (median of {len(query_ms)}) | "
        f"{statistics.median(query_ms):.1f} ms (max {max(query_ms):.1f}) |",
        f"| token vectors held for the token match (int8) | "
        f"{served.tokens.nbytes / 2**20:.1f} MiB |",
        f"| rank the tools for one request as served: embed, cosine, token match "
        f"(median of {len(ranking_ms)}) | "
        f"{statistics.median(ranking_ms):.1f} ms (max {max(ranking_ms):.1f}) |",
        "",
    ]
    misses = [
        row
        for row, split in zip(rows, splits, strict=True)
        if split == "dev" and not (row[2]["hybrid"] and row[2]["hybrid"] <= 5)
    ]
    if misses:
        out += [
            "Misses of (c) on dev (ranks within the top 20, - if not there):",
            "",
            "| request | expected | (a) | (b) | (c) | (d) | top 3 of (c) |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        for intent, expected, ranks, top in misses:
            out.append(
                f"| {cell(intent)} | {', '.join(expected)} | {ranks['lexical'] or '-'} "
                f"| {ranks['embedding'] or '-'} | {ranks['hybrid'] or '-'} | {ranks['cut'] or '-'} "
                f"| {', '.join(top)} |"
            )
        out.append("")
    if options.sweep:
        out += sweep([pair for pair, split in zip(pairs, splits, strict=True) if split == "dev"])
    text = "\n".join(out).rstrip() + "\n"
    print(text)
    _docs.write_section("catalog_hybrid", text)


def served_ranker(store, vectors: CatalogVectors):
    """The gateway's catalog ranking with its vectors ready (`hybrid_hits`)."""

    def rank(queries: list[str], source: str | None, limit: int) -> Ranked:
        return Ranked(hybrid_hits(store, vectors, queries, source, limit))

    return rank


def sweep(pairs: list[tuple[list[str], list[str], list[str]]]) -> list[str]:
    """recall@5 of lexical + w * dense fusions, by depth of both rankings, w and k."""
    depths, weights, ks = (10, 20, 40, None), (1.0, 2.0, 3.0), (10, 60)
    out = [
        "Sweep: recall@5 of weighted RRF (dense weight w), both rankings cut to a depth:",
        "",
        "| depth | " + " | ".join(f"k={k} w={w:g}" for k in ks for w in weights) + " |",
        "|---|" + "---:|" * (len(ks) * len(weights)),
    ]
    for depth in depths:
        cells = []
        for k in ks:
            for weight in weights:
                found = 0
                for lexical, dense, expected in pairs:
                    fused = reciprocal_rank_fusion(
                        [lexical[:depth], dense[:depth]], k, weights=(1.0, weight)
                    )
                    rank = rank_of(fused, expected)
                    found += rank is not None and rank <= 5
                cells.append(f"{found / len(pairs):.2f}")
        out.append(f"| {depth or 'all'} | " + " | ".join(cells) + " |")
    return [*out, ""]


if __name__ == "__main__":
    main()
