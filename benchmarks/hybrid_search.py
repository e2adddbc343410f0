"""IndexSearch latency and memory with response vectors (hybrid search), by store size.

The store is filled as `benchmarks/indexing.py` fills it for its keyword latency (1 MiB
responses of five formats in turn, up to 2, 10 and 51 MiB), then every response gets its
piece vectors. Embedding 51 MiB with the real model would take hours of CPU, and what a
search costs does not depend on the vectors' values, so the pieces get random unit vectors
(stored as the gateway stores them: int8 with a scale per piece); each query is embedded by
the real all-MiniLM-L6-v2, as IndexSearch does. Searches run as the gateway runs them with
vector search on (`search_with_labels` with the session's ranker: hybrid once vectors are
ready): over the whole store, and with `source=` one label. At the largest store, groups of
`CALL_QUERIES` queries are also searched in one call (their embeddings in one model pass)
and one query per call.

Usage: .venv/bin/python benchmarks/hybrid_search.py [--queries N] [--no-docs]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import indexing` must not find this file

import numpy as np  # noqa: E402

from benchmarks import _docs  # noqa: E402
from benchmarks.indexing import (  # noqa: E402
    MIB,
    fill_store,
    percentile,
    sample_queries,
    size_name,
    verdict,
)
from gateway.serving.process_tuning import limit_blas_threads  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.embeddings import Embedder  # noqa: E402
from indexing.engine.hybrid import embedder  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.model_folder import model_folder_ready  # noqa: E402
from indexing.engine.response_vectors import ResponseVectors, hybrid_response_hits  # noqa: E402
from indexing.engine.search import Ranked, search_with_labels  # noqa: E402
from indexing.engine.store import SessionStore  # noqa: E402
from localrouter import config  # noqa: E402

SECTION = "hybrid_search"
STORE_SIZES = (2 * MIB, 10 * MIB, 51 * MIB)
TARGET_P50_MS = 10.0
CALL_QUERIES = 5


class RandomPieces:
    """Random unit vectors for pieces (their values do not change a search's cost); the
    real model for queries, which `ResponseVectors.ranking` embeds with the model it holds."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.dimensions = model.dimensions
        self.pieces = True
        self.random = np.random.default_rng(20261205)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not self.pieces:
            return self.model.embed(texts)
        vectors = self.random.standard_normal((len(texts), self.dimensions), np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_with_tokens(self, texts: list[str], *, query: bool = False):
        """Queries, token by token: the model's."""
        return self.model.embed_with_tokens(texts, query=query)


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return (time.perf_counter() - started) * 1000


def measure(
    folder: Path, queries: int
) -> tuple[list[list[str]], float, tuple[float, float], tuple[float, float]]:
    """The table's rows, the median time to embed a query, the p50s at the largest store
    (whole store, one label), and there the p50s of `CALL_QUERIES` queries with `source=` in
    one call and in as many calls."""
    limit_blas_threads()  # as the gateway's serve entry points do
    model = embedder(folder)
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    vectors = ResponseVectors()
    pieces = RandomPieces(model)
    texts: list[str] = []
    labels: list[str] = []

    def rank(queries: list[str], source: str | None, limit: int) -> Ranked:
        hits = hybrid_response_hits(store, vectors, queries, source, limit)
        if hits is None:
            return Ranked([store.search(query, source=source, limit=limit) for query in queries])
        return Ranked(hits)

    rows = []
    embed_ms = []
    for target in STORE_SIZES:
        known = len(labels)
        fill_store(compressor, target, texts, labels)
        pieces.pieces = True
        for label in labels[known:]:
            vectors.add(store, label, pieces)
        pieces.pieces = False
        asked = sample_queries(texts, queries)
        for query in asked[:10]:  # warm caches
            search_with_labels(store, [query], rank=rank)
        everywhere, one_label, keywords = [], [], []
        for number, query in enumerate(asked):
            source = labels[number % len(labels)]
            everywhere.append(timed(search_with_labels, store, [query], None, None, rank))
            one_label.append(timed(search_with_labels, store, [query], source, None, rank))
            keywords.append(timed(search_with_labels, store, [query], source))
            embed_ms.append(timed(model.embed, [query]))
        rows.append(
            [
                f"{size_name(target)}",
                str(len(texts)),
                f"{percentile(everywhere, 0.5):.2f}",
                f"{percentile(everywhere, 0.99):.2f}",
                f"{percentile(one_label, 0.5):.2f}",
                f"{percentile(one_label, 0.99):.2f}",
                f"{percentile(keywords, 0.5):.2f}",
                f"{vectors.nbytes / 2**20:.1f} MiB ({vectors.nbytes / store.total_bytes:.2f}x)",
            ]
        )
        print(f"  {size_name(target)} done", file=sys.stderr, flush=True)
    together, apart = [], []  # at the largest store: CALL_QUERIES queries in one call or each alone
    for start in range(0, len(asked) - CALL_QUERIES + 1, CALL_QUERIES):
        group, source = asked[start : start + CALL_QUERIES], labels[start % len(labels)]
        together.append(timed(search_with_labels, store, group, source, None, rank))
        apart.append(sum(timed(search_with_labels, store, [q], source, None, rank) for q in group))
    store.close()
    whole, one = percentile(everywhere, 0.5), percentile(one_label, 0.5)
    calls = (percentile(together, 0.5), percentile(apart, 0.5))
    return rows, statistics.median(embed_ms), (whole, one), calls


def section(
    rows: list[list[str]],
    embed_ms: float,
    largest: tuple[float, float],
    calls: tuple[float, float],
    queries: int,
    run: str,
) -> str:
    columns = [
        "indexed",
        "responses",
        "p50 ms",
        "p99 ms",
        "p50 ms (source)",
        "p99 ms (source)",
        "keywords p50 ms (source)",
        "vectors held",
    ]
    whole, one = largest
    return "\n".join(
        [
            "## IndexSearch with response vectors",
            "",
            f"Run {run}, with `.venv/bin/python benchmarks/hybrid_search.py"
            f"{''.join(' ' + arg for arg in sys.argv[1:])}`.",
            "",
            "The store of *IndexSearch latency* above (1 MiB responses of five formats in "
            "turn), each response with its piece vectors (random unit vectors, int8 with a "
            "scale per piece, as the gateway keeps them: a search costs the same whatever "
            "their values); each query embedded by all-MiniLM-L6-v2, loaded as the gateway "
            "loads it (one BLAS thread). "
            f"{queries} queries of 1, 2 or 4 words from the indexed text, through "
            "`search_with_labels` with the gateway's hybrid ranker, over the whole store "
            "and with `source=` one label; the last column but one is the same searches by "
            "keywords alone.",
            "",
            _docs.markdown_table(columns, rows, "lrrrrrrr"),
            "",
            f"Embedding one query: {embed_ms:.1f} ms median. Target p50 <= "
            f"{TARGET_P50_MS:g} ms at {rows[-1][0]}: over the whole store "
            f"{verdict(whole <= TARGET_P50_MS)} ({whole:.2f} ms), with `source=` "
            f"{verdict(one <= TARGET_P50_MS)} ({one:.2f} ms).",
            "",
            f"{CALL_QUERIES} queries in one call (`source=` one label, {rows[-1][0]}; their "
            f"embeddings in one pass): p50 {calls[0]:.1f} ms, against {calls[1]:.1f} ms for "
            f"the same queries in {CALL_QUERIES} calls ({calls[0] / calls[1]:.2f}x).",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-docs", action="store_true")
    options = parser.parse_args()
    folder = config.embedding_model_dir(ROOT)
    if not model_folder_ready(folder):
        sys.exit(f"no model in {folder}: run `make embeddings` or set LOCALROUTER_EMBEDDING_MODEL")
    run = _docs.machine()
    rows, embed_ms, largest, calls = measure(folder, options.queries)
    text = section(rows, embed_ms, largest, calls, options.queries, run)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
