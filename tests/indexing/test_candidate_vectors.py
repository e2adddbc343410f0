"""A search made before its response's vectors are ready: its keyword candidates embedded at
once within the search's wait, ranked by meaning too, and their vectors kept by digest for
later searches and for the response's own embedding."""

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

from django.conf import settings  # noqa: E402

from indexing.api.response_embeddings import CANDIDATES_NOTE, ResponseEmbeddings  # noqa: E402
from indexing.engine.candidate_vectors import PIECES_PER_CANDIDATE  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.response_vectors import (  # noqa: E402
    ResponseVectors,
    piece_key,
    pieces,
    searched_pieces,
)
from indexing.engine.store import SessionStore  # noqa: E402

MAN = (settings.BASE_DIR / "benchmarks" / "retrieval_docs" / "find-man.txt").read_text()
QUERY = "skip directories deeper than some level"
LABELS = LabelCounter()


@pytest.fixture
def embedded(model, monkeypatch):
    """The texts the model embeds from now on (queries apart)."""
    texts: list[str] = []
    embed = model.embed
    monkeypatch.setattr(
        model, "embed", lambda batch, *a, **k: texts.extend(batch) or embed(batch, *a, **k)
    )
    return texts


def _label(store: SessionStore, text: str) -> str:
    compression = ResponseCompressor(store, LABELS).prepare("files__read", text, threshold=1024)
    assert compression is not None
    return compression.index().label  # indexed, never queued for vectors: they stay pending


def _pieces_of(store: SessionStore, chunk_ids: list[int]) -> list[str]:
    return [piece for hit in store.hits(chunk_ids) for piece in pieces(hit.body)]


def test_a_search_of_a_response_too_big_to_embed_in_time_ranks_its_candidates_by_meaning(
    store, embedded
):
    text = MAN[:80_000] + "\n/* candidates */\n"  # about 7 CPU-seconds of vectors
    label = _label(store, text)
    responses = ResponseEmbeddings(
        model_dir=settings.EMBEDDING_MODEL_DIR, max_bytes=2**20, static_vectors=False
    )
    ranked = responses.search(store, [QUERY], label, 5)
    assert ranked is not None and ranked.note.startswith(CANDIDATES_NOTE)
    first = store.search(QUERY, source=label, limit=1)[0]
    best = set(_pieces_of(store, [first.chunk_id]))
    assert len(best & set(embedded)) == min(len(best), PIECES_PER_CANDIDATE)  # the best one
    info = store.document(label)
    every = _pieces_of(store, list(range(info.first_chunk, info.last_chunk + 1)))
    assert len(embedded) < len(every) / 2  # not the whole response
    assert {hit.chunk_id for hit in ranked.hits[0]} <= {
        hit.chunk_id for hit in store.search(QUERY, source=label, limit=40)
    }
    before = set(embedded)
    embedded.clear()
    again = responses.search(store, [QUERY], label, 5)
    assert not before & set(embedded)  # a later search takes the vectors kept by digest
    assert _passages(again.note) >= _passages(ranked.note)  # and may embed more candidates
    responses.close()


def _passages(note: str) -> int:
    """How many passages a note says were ranked by meaning."""
    return int(note.removeprefix(CANDIDATES_NOTE).split()[0].strip("("))


def test_the_responses_own_embedding_takes_the_pieces_a_search_embedded(model, store, embedded):
    text = MAN[:6_000] + "\n/* embedded by a search first */\n"
    label = _label(store, text)
    responses = ResponseEmbeddings(
        model_dir=settings.EMBEDDING_MODEL_DIR,
        max_bytes=2**20,
        static_vectors=False,
        wait_seconds=30,
        candidates=2,
    )
    ranked = responses.search(store, [QUERY], label, 5)
    assert ranked.note.startswith(f"{CANDIDATES_NOTE} (2 passages)")
    by_search = list(embedded)
    assert all(searched_pieces.get(piece_key(model, piece)) is not None for piece in by_search)
    embedded.clear()
    vectors = ResponseVectors()
    vectors.add(store, label, model)
    info = store.document(label)
    every = _pieces_of(store, list(range(info.first_chunk, info.last_chunk + 1)))
    assert sorted(embedded) == sorted(piece for piece in every if piece not in by_search)
    assert vectors.ready([label])
    responses.close()


def test_no_candidates_means_keywords_alone_until_the_vectors_are_ready(store, model):
    label = _label(store, MAN[:20_000] + "\n/* no candidates */\n")
    responses = ResponseEmbeddings(
        model_dir=settings.EMBEDDING_MODEL_DIR, max_bytes=2**20, static_vectors=False, candidates=0
    )
    ranked = responses.search(store, [QUERY], label, 5)
    assert ranked.note.startswith("Ranked by keywords alone")
    assert ranked.hits == [store.search(QUERY, source=label, limit=5)]
    responses.close()


def test_a_pace_measured_on_a_busy_machine_still_lets_the_best_candidate_in(
    store, embedded, monkeypatch
):
    from indexing.engine import candidate_vectors

    monkeypatch.setattr(candidate_vectors._pace, "seconds_per_byte", 1.0)  # 10 s for 10 bytes
    label = _label(store, MAN[30_001:50_000] + "\n/* a busy machine */\n")  # pieces of its own
    responses = ResponseEmbeddings(
        model_dir=settings.EMBEDDING_MODEL_DIR, max_bytes=2**20, static_vectors=False
    )
    ranked = responses.search(store, ["print names ending with a null character"], label, 5)
    assert ranked.note.startswith(f"{CANDIDATES_NOTE} (1 passage)")  # and no other
    assert candidate_vectors._pace.seconds_per_byte < 1.0  # measured again
    responses.close()
