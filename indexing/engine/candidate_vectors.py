"""Vectors for a search's keyword candidates, while its response's own are computed.

A response's vectors take minutes of CPU a MiB (`indexing.engine.response_vectors`), and an
agent searches it seconds after its placeholder. Such a search embeds at once its keyword
ranking's best `candidates` chunks (each query's first, then each one's second, ...), as many
as fit before its deadline, each by the `PIECES_PER_CANDIDATE` pieces that hold the most of
the queries' words; it ranks those chunks by meaning as `ResponseVectors.rankings` ranks a
response's, and fuses that ranking with the keyword one as `hybrid_response_hits` does. On
the dev split of benchmarks/retrieval.py, with every vector at hand, recall@5 is 0.68 by
keywords, 0.68 with the 5 best chunks re-ranked whole (7.8 KB of text to embed, median),
0.78 with the 15 best by 2 pieces each (7.6 KB), 0.83 with the whole response embedded.
The pieces' vectors are kept by digest (`searched_pieces`): a later search, and the
response's own embedding job, take them instead of embedding them again. At the moment of
search, as served: benchmarks/retrieval.py, in docs/benchmarks.md.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from typing import Any, NamedTuple

from indexing.engine.response_vectors import (
    DEPTH,
    chunk_pieces,
    fused_hits,
    piece_key,
    pieces,
    ranked_by_meaning,
    searched_pieces,
)
from indexing.engine.store import Hit, SessionStore

logger = logging.getLogger(__name__)
PIECES_PER_CANDIDATE = 2
FIRST_SECONDS_PER_BYTE = 90 / 2**20
"""Embedding's pace before any was timed: 90 CPU-seconds a MiB (one core of the 2-core test
machine); then the pace of the latest searches."""


class CandidateHits(NamedTuple):
    """Each query's hits, and how many chunks among them were ranked by meaning too."""

    hits: list[list[Hit]]
    by_meaning: int


class _Pace:
    """Seconds a byte of text takes to embed, as the latest searches found it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds_per_byte = FIRST_SECONDS_PER_BYTE

    def learn(self, seconds: float, size: int) -> None:
        if size and seconds > 0.01:
            with self._lock:
                self.seconds_per_byte = 0.7 * self.seconds_per_byte + 0.3 * seconds / size


_pace = _Pace()
_WORD = re.compile(r"\w+")


def candidate_hits(
    store: SessionStore,
    model: Any,
    queries: list[str],
    source: str | None,
    limit: int,
    *,
    candidates: int,
    deadline: float,
) -> CandidateHits | None:
    """Each query's keyword hits, its best `candidates` re-ranked by meaning as far as their
    pieces can be embedded before `deadline` (a `time.perf_counter()` value); None when
    none could be."""
    lexical = [
        [hit.chunk_id for hit in store.search(query, source=source, limit=DEPTH)]
        for query in queries
    ]
    wanted = dict.fromkeys(
        ranking[rank] for rank in range(candidates) for ranking in lexical if rank < len(ranking)
    )
    words = {word for query in queries for word in _WORD.findall(query.lower())}
    started, embedded, reused = time.perf_counter(), 0, 0
    rows = {}
    for hit in store.hits(list(wanted)):
        texts = _sharing_words(pieces(hit.body), words)
        found = _embedded(model, texts, deadline, first=not rows) if texts else None
        if texts and found is None:
            break  # the best first: a later candidate is not embedded in place of this one
        if found is not None:
            rows[hit.chunk_id], count = found
            embedded, reused = embedded + count, reused + len(texts) - count
    logger.debug(
        "%d of %d keyword candidates ranked by meaning for a search: %d pieces embedded in "
        "%.2f s, %d reused",
        len(rows),
        len(wanted),
        embedded,
        time.perf_counter() - started,
        reused,
    )
    if not rows:
        return None
    dense = ranked_by_meaning(model, [chunk_pieces(rows)], queries, DEPTH)
    return CandidateHits(fused_hits(store, lexical, dense, limit), len(rows))


def _sharing_words(texts: list[str], words: set[str]) -> list[str]:
    """The `PIECES_PER_CANDIDATE` of `texts` that hold the most of `words`, in their order."""
    shared = [len(words.intersection(_WORD.findall(text.lower()))) for text in texts]
    best = sorted(range(len(texts)), key=lambda at: -shared[at])[:PIECES_PER_CANDIDATE]
    return [texts[at] for at in sorted(best)]


def _embedded(model: Any, texts: list[str], deadline: float, *, first: bool):
    """The int8 rows and scales of `texts` and how many had to be embedded (the others a
    search embedded before); None when embedding them would end after `deadline` (for the
    `first` of a search: when `deadline` is past, so that a pace measured on a busy machine
    is measured again)."""
    import numpy as np

    from indexing.engine.int8_vectors import quantise

    keys = [piece_key(model, text) for text in texts]
    found = [searched_pieces.get(key) for key in keys]
    missing = [row for row, held in enumerate(found) if held is None]
    size = sum(len(texts[row].encode()) for row in missing)
    ends = time.perf_counter() + (0 if first else size * _pace.seconds_per_byte)
    if missing and ends >= deadline:
        return None
    if missing:
        started = time.perf_counter()
        quantized, scales = quantise(model.embed([texts[row] for row in missing]))
        _pace.learn(time.perf_counter() - started, size)
        for at, row in enumerate(missing):
            found[row] = (quantized[at].copy(), scales[at : at + 1].copy())
            searched_pieces.put(keys[row], found[row])
    return (np.stack([q for q, _ in found]), np.concatenate([s for _, s in found])), len(missing)
