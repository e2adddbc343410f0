"""What an agent gets: each response searched right after its placeholder, as served.

Shared by benchmarks/retrieval.py. The documents are indexed one after another into one
`SessionStore` through `ResponseCompressor`, each one's embedding scheduled on the gateway's
background thread (`indexing.api.response_embeddings`, the real model, nothing cached), and
each one's questions searched as soon as it is indexed, through the gateway's ranker
(`indexing.api.session_store.hybrid_ranker`) and `search_with_labels`, as IndexSearch serves
them. The searches take what is ready by then: vectors when they are, else static vectors
(`indexing.engine.static_vectors`), else their keyword candidates embedded within the wait
(`indexing.engine.candidate_vectors`), else keywords. The model and the static table are
loaded first, as a gateway has them loaded once it embedded a catalog and indexed a
response.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from indexing.api.response_embeddings import (
    APPROXIMATE_NOTE,
    CANDIDATES_NOTE,
    ResponseEmbeddings,
)
from indexing.api.session_store import hybrid_ranker
from indexing.engine.compressor import ResponseCompressor
from indexing.engine.hybrid import embedder
from indexing.engine.labels import LabelCounter
from indexing.engine.search import search_with_labels
from indexing.engine.static_vectors import load
from indexing.engine.store import Hit, SessionStore

ANSWER_HITS = 5  # IndexSearch's default limit: what one answer holds


@dataclass
class Moment:
    """Per question id: the rank of its answer (1-based, None below `deep`), whether its
    response's vectors ranked it, its static vectors or only its keyword candidates' vectors,
    and the bytes of IndexSearch's answer at its default limit."""

    ranks: dict[str, int | None] = field(default_factory=dict)
    with_vectors: set[str] = field(default_factory=set)
    with_static: set[str] = field(default_factory=set)
    with_candidates: set[str] = field(default_factory=set)
    answer_bytes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    line: int


def moment_of_search(
    texts: dict[str, str],
    questions: dict[str, list[Question]],
    *,
    tool: str,
    threshold: int,
    model_dir: Path,
    max_bytes: int,
    candidates: int,
    static_vectors: bool,
    deep: int,
    rank_of: Callable[[list[Hit], int], int | None],
) -> Moment:
    """`texts` (document key -> text) indexed in order, each one's `questions` searched at once."""
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    model = embedder(model_dir)
    if static_vectors:
        load(model_dir, model)
    responses = ResponseEmbeddings(
        model_dir=model_dir,
        max_bytes=max_bytes,
        candidates=candidates,
        static_vectors=static_vectors,
    )
    rank = hybrid_ranker(store, None, responses)
    moment = Moment()
    try:
        for key, text in texts.items():
            compression = compressor.prepare(tool, text, threshold=threshold)
            if compression is None:
                raise RuntimeError(f"{key} was not indexed ({len(text)} chars)")
            label = compression.index().label
            responses.schedule(store, compression)  # as the gateway, after the placeholder
            for question in questions.get(key, []):
                ranked = rank([question.text], label, deep)
                moment.ranks[question.id] = rank_of(ranked.hits[0], question.line)
                if ranked.note is None:
                    moment.with_vectors.add(question.id)
                elif ranked.note.startswith(APPROXIMATE_NOTE):
                    moment.with_static.add(question.id)
                elif ranked.note.startswith(CANDIDATES_NOTE):
                    moment.with_candidates.add(question.id)
                answer, _ = search_with_labels(store, [question.text], label, ANSWER_HITS, rank)
                moment.answer_bytes[question.id] = len(answer.encode())
    finally:
        responses.close()
        store.close()
    return moment
