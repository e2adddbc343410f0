"""Retrieval check: does IndexSearch find the line that answers a question about a document
it has never seen?

Run from the repository root (keywords alone, `--no-vectors`: about ten seconds; with the
model installed, about 4 CPU-minutes, 9 minutes at a load average of 5 to 8 on 2 cores, most
of it the two moment-of-search runs below; the first run also embeds the documents' 2 MiB
into the cache below, about 6 CPU-minutes more):

    .venv/bin/python benchmarks/retrieval.py [--no-docs] [--dev-misses] [--candidates N]

The documents are real files of Debian, npm and PyPI packages copied into
`benchmarks/retrieval_docs/` (provenance and licence in its `manifest.json`, made by
`benchmarks/retrieval_collect.py`). All are indexed into ONE `SessionStore` through
`ResponseCompressor`, as the gateway does with large tool responses. Each question of
`benchmarks/retrieval_questions.json` names its document and a substring of exactly one line
of it. A question is answered at rank k when the k-th hit of `store.search(question,
source=label)` (the search IndexSearch runs, scoped as the placeholder suggests) covers that
line.

The questions are split by a hash of their id into `dev` (tune on it; `--dev-misses` lists its
misses) and `test` (report it; its misses are never printed). Reported per split and per
document kind: recall@1/@5/@10 and MRR (over the top DEEP hits), and the same for a baseline
in the same run: plain BM25 over fixed BASELINE_LINES-line windows of the document.

Where the embedding model is installed (as `make serve` installs it), every question is also
searched as IndexSearch ranks with vector search on once a response's vectors are computed
(`indexing.engine.response_vectors.hybrid_response_hits`), and as a search ranks whose keyword
candidates (`--candidates`, the gateway's default) are embedded however long it takes
(`indexing.engine.candidate_vectors`). Piece vectors are kept in var/retrieval-vectors.npz
(by text) so that reruns take less; `--no-vectors` skips this. Then, at the moment of search
(`benchmarks/_moment_of_search.py`), every question is searched right after its document is
indexed, as served, twice: with static vectors (`indexing.engine.static_vectors`, the
model's table read from, or built into, its folder) and `--candidates` keyword hits embedded
within the search's wait where there are none, and with neither (keywords alone); each run
computes its vectors afresh.

The markdown goes to stdout and into docs/benchmarks.md between `<!-- retrieval:start -->`
and `<!-- retrieval:end -->`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import indexing` must find the package
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as catalog_hybrid.py: before numpy

from benchmarks import _docs  # noqa: E402
from benchmarks._moment_of_search import ANSWER_HITS, Moment, Question, moment_of_search  # noqa: E402
from benchmarks._time_to_vectors import TimeToVectors, time_to_vectors  # noqa: E402
from indexing.api.response_embeddings import CANDIDATES  # noqa: E402
from indexing.engine.candidate_vectors import candidate_hits  # noqa: E402
from indexing.engine.chunker import chunk_document  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.response_vectors import (  # noqa: E402
    DENSE_WEIGHT,
    DEPTH,
    FUSION_K,
    PIECE_LINES,
    ResponseVectors,
    forget_reused,
    hybrid_response_hits,
)
from indexing.engine.search import Ranked, location, search_with_labels  # noqa: E402
from indexing.engine.store import Hit, SessionStore  # noqa: E402
from indexing.engine.text import one_line, sanitize  # noqa: E402
from localrouter import config  # noqa: E402
from tests.engine_helpers import compress_text  # noqa: E402

SECTION = "retrieval"
DOCS_DIR = Path(__file__).resolve().parent / "retrieval_docs"
MANIFEST = DOCS_DIR / "manifest.json"
QUESTIONS = Path(__file__).resolve().parent / "retrieval_questions.json"
THRESHOLD = 16_384
TOOL = "files__read_text_file"
DEEP = 10  # hits asked per question; MRR counts a miss below this as 0
BASELINE_LINES = 40
WIDE_BASELINE_LINES = 60  # the bar keyword ranking is to reach (issue 39)
RESPONSE_VECTORS_MAX_BYTES = 512 * 1024  # the gateway's default
TARGET_RECALL_AT_5 = 0.9
TARGET_RECALL_AT_1 = 0.65
VECTOR_CACHE = ROOT / "var" / "retrieval-vectors.npz"


@dataclass(frozen=True)
class Document:
    key: str
    kind: str
    file: str
    source: str
    path: str
    licence: str
    note: str


@dataclass
class Indexed:
    document: Document
    label: str
    lines: list[str]
    chunks: int
    size: int


@dataclass
class Outcome:
    id: str
    doc: str
    kind: str
    question: str
    line: int
    rank: int | None  # 1-based rank of the answer's chunk in the top DEEP, None if below
    baseline_rank: int | None
    first_hit: Hit | None
    hybrid_rank: int | None = None  # with vectors; None also when there are none
    wide_rank: int | None = None  # the baseline over WIDE_BASELINE_LINES-line windows
    answer_bytes: dict[str, int] | None = None  # bytes of one answer, by ranking
    candidates_rank: int | None = None  # keyword candidates by meaning too, no time bound

    @property
    def split(self) -> str:
        return _docs.split_of(self.id)


def load_documents() -> list[Document]:
    return [Document(**entry) for entry in json.loads(MANIFEST.read_text(encoding="utf-8"))]


def index_all(store: SessionStore, documents: list[Document]) -> dict[str, Indexed]:
    compressor = ResponseCompressor(store, LabelCounter())
    indexed = {}
    for document in documents:
        text = (DOCS_DIR / document.file).read_text(encoding="utf-8")
        placeholder, stats = compress_text(compressor, TOOL, text, threshold=THRESHOLD)
        if placeholder is None or stats is None:
            raise RuntimeError(f"{document.file} was not indexed ({len(text)} chars)")
        lines = chunk_document(sanitize(text)).lines  # the lines IndexRead serves
        assert len(lines) == stats.lines
        indexed[document.key] = Indexed(
            document,
            stats.label,
            [lines[n] for n in range(len(lines))],
            stats.chunks,
            stats.original_bytes,
        )
    return indexed


# --------------------------------------------------------------------------- vectors


class CachedModel:
    """The embedding model behind a cache of vectors by text, kept in VECTOR_CACHE; once
    `queries` is set, texts go to the model itself (searches embed their query as served)."""

    def __init__(self, model) -> None:
        import numpy as np

        self.model = model
        self.dimensions = model.dimensions
        self.cpu_seconds = 0.0
        self.embedded_bytes = 0
        self.queries = False
        self.cache: dict[str, np.ndarray] = {}
        if VECTOR_CACHE.is_file():
            with np.load(VECTOR_CACHE) as stored:
                self.cache = {key: stored[key] for key in stored.files}

    def embed(self, texts: list[str]):
        import numpy as np

        if self.queries:
            return self.model.embed(texts)
        keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
        missing = {
            key: text for key, text in zip(keys, texts, strict=True) if key not in self.cache
        }
        if missing:
            started = time.process_time()
            vectors = self.model.embed(list(missing.values()))
            self.cpu_seconds += time.process_time() - started
            self.embedded_bytes += sum(len(text.encode()) for text in missing.values())
            self.cache.update(zip(missing, vectors, strict=True))
        return np.stack([self.cache[key] for key in keys]) if keys else np.zeros((0, 384))

    def embed_with_tokens(self, texts: list[str], *, query: bool = False):
        """As the model (queries only: never cached)."""
        return self.model.embed_with_tokens(texts, query=query)

    def save(self) -> None:
        import numpy as np

        VECTOR_CACHE.parent.mkdir(exist_ok=True)
        np.savez(VECTOR_CACHE, **self.cache)


def response_vectors(store: SessionStore, indexed: dict[str, Indexed]):
    """Every document's vectors as the gateway computes them, and the cached model; None
    without the model (or numpy & co.)."""
    folder = config.embedding_model_dir(ROOT)
    if not config.embedding_backend_ready(folder):
        return None
    from indexing.engine.embeddings import Embedder

    model = CachedModel(Embedder.from_path(folder))
    vectors = ResponseVectors()
    for doc in indexed.values():
        vectors.add(store, doc.label, model)
    model.save()
    model.queries = True
    return vectors, model


# --------------------------------------------------------------------------- baseline

_WORD = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class WindowBM25:
    """Plain BM25 (k1 1.2, b 0.75) over fixed windows of `size` lines: the naive baseline."""

    def __init__(self, lines: list[str], size: int) -> None:
        self.lines = lines
        self.windows = [
            (start + 1, min(start + size, len(lines))) for start in range(0, len(lines), size)
        ]
        self.counts = [Counter(_tokens("\n".join(lines[a - 1 : b]))) for a, b in self.windows]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = statistics.fmean(self.lengths) if self.lengths else 0.0
        held = Counter(token for counts in self.counts for token in counts)
        n = len(self.windows)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in held.items()}

    def answer_bytes(self, query: str, hits: int = ANSWER_HITS) -> int:
        """Bytes of the text of the `hits` best windows (what answering with them costs)."""
        return sum(
            len("\n".join(self.lines[first - 1 : last]).encode())
            for first, last in self._ranked(query)[:hits]
        )

    def rank_of(self, query: str, line: int, deep: int) -> int | None:
        for rank, (first, last) in enumerate(self._ranked(query)[:deep], start=1):
            if first <= line <= last:
                return rank
        return None

    def _ranked(self, query: str) -> list[tuple[int, int]]:
        """The windows (first line, last line) that hold a query term, best first."""
        terms = set(_tokens(query))
        scores = []
        for index, (counts, length) in enumerate(zip(self.counts, self.lengths, strict=True)):
            score = 0.0
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    norm = 1.2 * (0.25 + 0.75 * length / self.average)
                    score += self.idf[term] * tf * 2.2 / (tf + norm)
            if score > 0:
                scores.append((-score, index))
        return [self.windows[index] for _, index in sorted(scores)]


# --------------------------------------------------------------------------- evaluation


def evaluate(
    store: SessionStore,
    indexed: dict[str, Indexed],
    vectors: ResponseVectors | None,
    timings: dict[str, list[float]],
    model: CachedModel | None = None,
    candidates: int = CANDIDATES,
) -> list[Outcome]:
    """Every question's outcome; the seconds each search took go to `timings` (by ranking).
    With `model`, also the ranking of a search whose `candidates` are embedded, however long
    that takes (the vectors in VECTOR_CACHE)."""
    baselines = {key: WindowBM25(doc.lines, BASELINE_LINES) for key, doc in indexed.items()}
    wide = {key: WindowBM25(doc.lines, WIDE_BASELINE_LINES) for key, doc in indexed.items()}
    outcomes = []
    for entry in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]:
        doc = indexed[entry["doc"]]
        lines = [n for n, text in enumerate(doc.lines, start=1) if entry["answer"] in text]
        if len(lines) != 1:
            raise ValueError(f"{entry['id']}: answer on {len(lines)} lines, expected exactly 1")
        started = time.perf_counter()
        hits = store.search(entry["q"], source=doc.label, limit=DEEP)
        timings["keywords"].append(time.perf_counter() - started)
        rank = _rank_of(hits, lines[0])
        answer_bytes = {
            "keywords": len(search_with_labels(store, [entry["q"]], doc.label)[0].encode()),
            "baseline": baselines[entry["doc"]].answer_bytes(entry["q"]),
            "wide": wide[entry["doc"]].answer_bytes(entry["q"]),
        }
        hybrid = None
        if vectors is not None:
            started = time.perf_counter()
            fused = hybrid_response_hits(store, vectors, [entry["q"]], doc.label, DEEP)
            timings["hybrid"].append(time.perf_counter() - started)
            assert fused is not None, f"{doc.label} has no vectors"
            hybrid = _rank_of(fused[0], lines[0])
            answer_bytes["hybrid"] = _hybrid_answer_bytes(store, vectors, entry["q"], doc.label)
        candidates_rank = None
        if model is not None and candidates:
            rank_candidates = _candidates_ranker(store, model, candidates)
            found = rank_candidates([entry["q"]], doc.label, DEEP)
            candidates_rank = _rank_of(found.hits[0], lines[0])
            answer, _ = search_with_labels(
                store, [entry["q"]], doc.label, ANSWER_HITS, rank_candidates
            )
            answer_bytes["candidates"] = len(answer.encode())
        outcomes.append(
            Outcome(
                entry["id"],
                entry["doc"],
                doc.document.kind,
                entry["q"],
                lines[0],
                rank,
                baselines[entry["doc"]].rank_of(entry["q"], lines[0], DEEP),
                hits[0] if hits else None,
                hybrid,
                wide[entry["doc"]].rank_of(entry["q"], lines[0], DEEP),
                answer_bytes,
                candidates_rank,
            )
        )
    return outcomes


def _candidates_ranker(store: SessionStore, model: CachedModel, candidates: int):
    """IndexSearch's ranking with its keyword `candidates` embedded, however long that takes
    (their pieces' vectors from VECTOR_CACHE; the queries embedded as served)."""

    def rank(queries: list[str], source: str | None, limit: int) -> Ranked:
        model.queries = False
        try:
            found = candidate_hits(
                store, model, queries, source, limit, candidates=candidates, deadline=math.inf
            )
        finally:
            model.queries = True
        if found is None:
            return Ranked([store.search(query, source=source, limit=limit) for query in queries])
        return Ranked(found.hits)

    return rank


def _hybrid_answer_bytes(store: SessionStore, vectors: ResponseVectors, query: str, label: str):
    """Bytes of IndexSearch's answer ranked with the vectors (its default limit)."""

    def rank(queries: list[str], source: str | None, limit: int) -> Ranked:
        found = hybrid_response_hits(store, vectors, queries, source, limit)
        assert found is not None
        return Ranked(found)

    return len(search_with_labels(store, [query], label, ANSWER_HITS, rank)[0].encode())


def at_moment_of_search(
    outcomes: list[Outcome], indexed: dict[str, Indexed], candidates: int, static_vectors: bool
) -> Moment:
    """Every question searched right after its document is indexed, as served with
    `candidates` and `static_vectors` (0 and False: keywords until vectors come), no vector
    kept from a run before."""
    forget_reused()
    questions: dict[str, list[Question]] = {}
    for o in outcomes:
        questions.setdefault(o.doc, []).append(Question(o.id, o.question, o.line))
    texts = {
        key: (DOCS_DIR / doc.document.file).read_text(encoding="utf-8")
        for key, doc in indexed.items()
    }
    return moment_of_search(
        texts,
        questions,
        tool=TOOL,
        threshold=THRESHOLD,
        model_dir=config.embedding_model_dir(ROOT),
        max_bytes=RESPONSE_VECTORS_MAX_BYTES,
        candidates=candidates,
        static_vectors=static_vectors,
        deep=DEEP,
        rank_of=_rank_of,
    )


def _rank_of(hits: list[Hit], line: int) -> int | None:
    return next(
        (r for r, hit in enumerate(hits, 1) if hit.start_line <= line <= hit.end_line), None
    )


def recall(ranks: list[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr(ranks: list[int | None]) -> float:
    return sum(1 / r for r in ranks if r is not None) / len(ranks) if ranks else 0.0


def _row(name: str, outcomes: list[Outcome], vectors: bool, bold: bool = False) -> str:
    columns = [[o.rank for o in outcomes], [o.baseline_rank for o in outcomes]]
    if vectors:
        columns.insert(1, [o.hybrid_rank for o in outcomes])
    cells = []
    for number, ranks in enumerate(columns):
        cells += [f"{recall(ranks, 1):.2f}", f"{recall(ranks, 5):.2f}"]
        if number < len(columns) - 1:  # the baseline's R@10 is not shown
            cells.append(f"{recall(ranks, 10):.2f}")
        cells.append(f"{mrr(ranks):.2f}")
    if bold:
        cells = [f"**{c}**" for c in cells]
    return f"| {name} | {len(outcomes)} | " + " | ".join(cells) + " |"


def report(
    indexed: dict[str, Indexed],
    outcomes: list[Outcome],
    timings: dict[str, list[float]],
    model: CachedModel | None,
    vector_bytes: int,
    options: str,
    moment: list[str],
) -> str:
    vectors = model is not None
    kinds = sorted({doc.document.kind for doc in indexed.values()})
    total = sum(doc.size for doc in indexed.values())
    out = [
        "## Retrieval",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python benchmarks/retrieval.py{options}`.",
        "",
        f"{len(outcomes)} questions (`benchmarks/retrieval_questions.json`) over {len(indexed)} "
        f"real documents of {len(kinds)} kinds ({total / 2**20:.1f} MiB, "
        "`benchmarks/retrieval_docs/`, taken from Debian, npm and PyPI packages; their "
        "`manifest.json` names package, version, path and licence). The questions are worded "
        "as someone who has not read the document would ask, without the answer line's rare "
        "words; each names one line (its answer). All documents are indexed into one "
        "`SessionStore` through `ResponseCompressor` (threshold "
        f"{THRESHOLD:,} bytes); a question is found at rank k when hit k of "
        "`store.search(question, source=label)` (what IndexSearch runs, scoped as the "
        f"placeholder suggests) covers the answer line. MRR over the top {DEEP}. *Baseline*: "
        f"plain BM25 over fixed {BASELINE_LINES}-line windows of the same document, in the "
        "same run. The split is a hash of the question id: **dev** is tuned on, **test** is "
        "only reported (its misses are never printed).",
    ]
    if vectors:
        out += [
            "",
            "*Keywords* is the ranking without the embedding model (and, with it and static "
            "vectors off, until a response's vectors are computed); *hybrid* is IndexSearch "
            "with vector search on once they are (`indexing.engine.response_vectors`: "
            f"all-MiniLM-L6-v2 vectors of {PIECE_LINES}-line pieces; a chunk scores the mean over "
            "the query's tokens of each "
            f"one's best cosine among its pieces; the top {DEPTH} of each ranking fused by RRF, "
            f"k {FUSION_K}, embeddings weighted {DENSE_WEIGHT:g}x).",
        ]
    header = "| kind | questions | R@1 | R@5 | R@10 | MRR | "
    if vectors:
        header = (
            "| kind | questions | keywords R@1 | keywords R@5 | keywords R@10 | keywords MRR "
            "| hybrid R@1 | hybrid R@5 | hybrid R@10 | hybrid MRR | "
        )
    header += "baseline R@1 | baseline R@5 | baseline MRR |"
    rule = "|---|" + "---:|" * (header.count("|") - 2)
    for split in _docs.SPLITS:
        mine = [o for o in outcomes if o.split == split]
        out += ["", f"### {split}", "", header, rule]
        for kind in kinds:
            out.append(_row(kind, [o for o in mine if o.kind == kind], vectors))
        out.append(_row(f"**all {split}**", mine, vectors, bold=True))
    out += moment
    out.append("")
    rankings = {"keywords": [o.rank for o in outcomes if o.split == "test"]}
    if vectors:
        rankings["hybrid"] = [o.hybrid_rank for o in outcomes if o.split == "test"]
    for name, test in rankings.items():
        r1, r5 = recall(test, 1), recall(test, 5)
        out.append(
            f"Targets on test, {name}: recall@5 >= {TARGET_RECALL_AT_5:g} "
            + ("**met**" if r5 >= TARGET_RECALL_AT_5 else "**missed**")
            + f" ({r5:.2f}, 95% interval {_docs.recall_interval(test, 5)});"
            + f" recall@1 >= {TARGET_RECALL_AT_1:g} "
            + ("**met**" if r1 >= TARGET_RECALL_AT_1 else "**missed**")
            + f" ({r1:.2f}, 95% interval {_docs.recall_interval(test, 1)}).",
        )
    out.append(
        "The intervals resample the test questions (bootstrap, 2,000 draws): a change whose "
        "figures stay inside them may be the luck of which questions fell in the split."
    )
    medians = [
        f"{name} {statistics.median(seconds) * 1000:.1f} ms"
        for name, seconds in timings.items()
        if seconds
    ]
    out += ["", f"Median time per search ({len(outcomes)} questions): " + ", ".join(medians) + "."]
    if vector_bytes:
        out[-1] += (
            f" Vectors held: {vector_bytes / 2**20:.1f} MiB for {total / 2**20:.1f} MiB of text "
            f"({vector_bytes / total:.2f} bytes per byte)."
        )
    if model is not None and model.embedded_bytes:
        per_mib = model.cpu_seconds / (model.embedded_bytes / 2**20)
        out[-1] += (
            f" Embedding the pieces not yet in var/retrieval-vectors.npz "
            f"({model.embedded_bytes / 2**20:.2f} MiB of text) took {model.cpu_seconds:.0f} "
            f"CPU-seconds: {per_mib:.0f} CPU-seconds per MiB (one BLAS thread)."
        )
    out += [
        "",
        "| document | kind | from | lines | chunks | questions (dev/test) |",
        "|---|---|---|---:|---:|---:|",
    ]
    for key, doc in indexed.items():
        mine = [o for o in outcomes if o.doc == key]
        dev = sum(1 for o in mine if o.split == "dev")
        note = f"; {doc.document.note}" if doc.document.note else ""
        out.append(
            f"| {doc.document.file} | {doc.document.kind} | {doc.document.source} "
            f"({doc.document.licence}{note}) | {len(doc.lines):,} | {doc.chunks:,} "
            f"| {len(mine)} ({dev}/{len(mine) - dev}) |"
        )
    return "\n".join(out).rstrip() + "\n"


def moment_section(
    outcomes: list[Outcome], moments: dict[str, Moment], timings: list[TimeToVectors]
) -> list[str]:
    """What an agent gets on the test split: recall at the moment of search (`moments`: by
    the name of its row) beside recall with vectors ready, bytes per answer; recall@5 at the
    moment of search on the dev split; and how long vectors take."""
    test = [o for o in outcomes if o.split == "test"]
    rows = []

    def row(name: str, ranks: list[int | None], key: str, with_vectors: str = "") -> None:
        sizes = [o.answer_bytes[key] for o in test if o.answer_bytes and key in o.answer_bytes]
        rows.append(
            f"| {name} | {recall(ranks, 1):.2f} | **{recall(ranks, 5):.2f}** "
            f"({_docs.recall_interval(ranks, 5)}) | {recall(ranks, 10):.2f} | {mrr(ranks):.2f} "
            f"| {with_vectors} | {statistics.fmean(sizes):,.0f} |"
        )

    for name, moment in moments.items():
        for o in test:
            o.answer_bytes[name] = moment.answer_bytes[o.id]
        used = sum(1 for o in test if o.id in moment.with_vectors)
        static = sum(1 for o in test if o.id in moment.with_static)
        candidates = sum(1 for o in test if o.id in moment.with_candidates)
        row(
            name,
            [moment.ranks[o.id] for o in test],
            name,
            f"{used} of {len(test)}"
            + f"; static in {static}" * bool(static)
            + f"; candidates' in {candidates}" * bool(candidates),
        )
    row("keywords alone", [o.rank for o in test], "keywords", "none")
    if any(o.candidates_rank is not None for o in test):
        row(
            "keyword candidates by meaning too, however long it takes",
            [o.candidates_rank for o in test],
            "candidates",
            "candidates'",
        )
    if any(o.hybrid_rank is not None for o in test):
        row("with vectors ready", [o.hybrid_rank for o in test], "hybrid", "all")
    row(
        f"baseline: BM25, {BASELINE_LINES}-line windows",
        [o.baseline_rank for o in test],
        "baseline",
    )
    row(f"baseline: BM25, {WIDE_BASELINE_LINES}-line windows", [o.wide_rank for o in test], "wide")
    out = [
        "",
        "### What the agent gets (test split)",
        "",
        "*At the moment of search*: each document indexed as a response, its vectors "
        "scheduled on the gateway's embedding queue (real model loaded, no vector computed "
        "yet), and its questions searched as soon as it is indexed, through the gateway's "
        "ranker, as an agent searches right after the placeholder. The ranker waits up to "
        "1 s for vectors due by then; failing them, *as served* ranks with the static "
        "vectors its response got as it was indexed (`indexing.engine.static_vectors`, its "
        "table loaded first: *static* below), or, without them, embeds its best "
        f"{CANDIDATES} keyword hits within that second and ranks those by meaning too "
        "(`indexing.engine.candidate_vectors`: *candidates'* below); *as before* (no static "
        "vectors, candidates 0) ranks by keywords alone. *With vectors ready*: "
        "the hybrid ranking once every vector is computed, "
        f"which no agent sees within seconds. Bytes per answer: IndexSearch's text for one "
        f"query at its default limit ({ANSWER_HITS} hits); for the baselines, the text of their "
        f"{ANSWER_HITS} best windows. In brackets, the 95% interval of recall@5. At the "
        "moment of search the store holds only the documents read so far, and BM25's "
        "statistics are the store's: hence keywords rank a little differently there.",
        "",
        "| ranking | R@1 | R@5 | R@10 | MRR | searches ranked with vectors | bytes per answer |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
    ]
    dev = [o for o in outcomes if o.split == "dev"]
    if moments and dev:
        figures = [
            f"{name} {recall([moment.ranks[o.id] for o in dev], 5):.2f}"
            for name, moment in moments.items()
        ]
        if any(o.candidates_rank is not None for o in dev):
            figures.append(
                "keyword candidates by meaning too, however long it takes "
                f"{recall([o.candidates_rank for o in dev], 5):.2f}"
            )
        if any(o.hybrid_rank is not None for o in dev):
            figures.append(f"with vectors ready {recall([o.hybrid_rank for o in dev], 5):.2f}")
        figures.append(f"keywords alone {recall([o.rank for o in dev], 5):.2f}")
        out += ["", f"Dev split (tuned on), recall@5: {'; '.join(figures)}."]
    if timings:
        out += [
            "",
            "Time to vectors: a response of real text (these documents one after another) "
            "indexed, then embedded as the gateway embeds it (6-line pieces, one BLAS thread). "
            "The time is the wall-clock time on this machine at the load noted above; on an "
            "idle core it is about the CPU time. A search waits for them only when they are "
            "due within 1 s (`LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS`).",
            "",
            "| response | pieces | time to vectors, s | CPU s | CPU s per MiB |",
            "|---:|---:|---:|---:|---:|",
        ]
        for t in timings:
            out.append(
                f"| {t.size / 1024:,.0f} KiB | {t.pieces:,} | {t.wall_seconds:.1f} "
                f"| {t.cpu_seconds:.1f} | {t.cpu_seconds / (t.size / 2**20):.0f} |"
            )
    return out


def dev_misses(outcomes: list[Outcome]) -> str:
    """The dev questions not found in the top 5, with what came first instead."""
    rows = []
    for o in outcomes:
        if o.split != "dev" or (o.rank is not None and o.rank <= 5):
            continue
        first = o.first_hit
        instead = f"{location(first)} {one_line(first.title, 50)}" if first else "no hits"
        rows.append(
            f"{o.id:30} L{o.line:<6} rank={o.rank or '-':<3} hybrid={o.hybrid_rank or '-':<3} "
            f"{o.question}  <- {instead}"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument(
        "--dev-misses", action="store_true", help="list the dev split's misses on stderr"
    )
    parser.add_argument(
        "--no-vectors", action="store_true", help="keywords only, even with the model installed"
    )
    parser.add_argument(
        "--time-to-vectors",
        action="store_true",
        help="also time the vectors of 16 KiB to 1 MiB responses (about 4 CPU-minutes)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=CANDIDATES,
        help=f"keyword hits a search embeds at the moment of search (default {CANDIDATES})",
    )
    options = parser.parse_args()
    store = SessionStore()
    indexed = index_all(store, load_documents())
    found = None if options.no_vectors else response_vectors(store, indexed)
    vectors, model = found if found is not None else (None, None)
    timings: dict[str, list[float]] = {"keywords": [], "hybrid": []}
    outcomes = evaluate(store, indexed, vectors, timings, model, options.candidates)
    if options.dev_misses:
        print(dev_misses(outcomes), file=sys.stderr)
    vector_bytes = vectors.nbytes if vectors is not None else 0
    moments = {}
    if vectors is not None:
        served = (
            f"at the moment of search, as served (static vectors, {options.candidates} candidates)"
        )
        moments[served] = at_moment_of_search(outcomes, indexed, options.candidates, True)
        moments["at the moment of search, keywords (no static vectors, 0 candidates)"] = (
            at_moment_of_search(outcomes, indexed, 0, False)
        )
    waits = []
    if options.time_to_vectors and model is not None:
        texts = [(DOCS_DIR / d.document.file).read_text(encoding="utf-8") for d in indexed.values()]
        waits = time_to_vectors(texts, model.model, tool=TOOL)
    flags = " --no-vectors" * options.no_vectors + " --time-to-vectors" * bool(waits)
    flags += f" --candidates {options.candidates}" * (options.candidates != CANDIDATES)
    text = report(
        indexed,
        outcomes,
        timings,
        model,
        vector_bytes,
        flags,
        moment_section(outcomes, moments, waits),
    )
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)
        print(f"updated {_docs.relative(_docs.DOCS)}", file=sys.stderr)


if __name__ == "__main__":
    main()
