"""indexing.engine.response_vectors: hybrid search over responses, with a stand-in model.

The stand-in embeds a text as the concepts its words name (several words per concept), so a
question in other words than its answer line meets it by meaning only, as with the real
model (whose own tests are in test_embeddings.py).
"""

import pytest

np = pytest.importorskip("numpy", reason="numpy (optional, for embeddings) not installed")

from indexing.engine.embeddings import TokenVectors  # noqa: E402
from indexing.engine.response_vectors import (  # noqa: E402
    PIECE_LINES,
    ResponseVectors,
    hybrid_response_hits,
    pieces,
)
from indexing.engine.store import SessionStore  # noqa: E402
from tests.engine_helpers import add_text  # noqa: E402

CONCEPTS = [
    {"gzopen", "open", "gz", "gzip"},
    {"gzclose", "close", "finish"},
    {"crc32", "checksum", "integrity"},
]


class ConceptModel:
    """Unit vectors over CONCEPTS plus one dimension for every other word."""

    dimensions = len(CONCEPTS) + 1

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        return _unit(np.array([self._counts(_words(text)) for text in texts], np.float32))

    def embed_with_tokens(
        self, texts: list[str], *, query: bool = False
    ) -> tuple[np.ndarray, list[TokenVectors]]:
        """As the real model: sentence vectors, and each word as a token vector of its own."""
        tokens = []
        for text in texts:
            words = _words(text)
            rows = np.array([self._counts([word], 0.0) for word in words], np.float32)
            rows = rows.reshape(-1, self.dimensions)  # also for a text of no words
            tokens.append(TokenVectors(list(range(len(words))), _unit(rows)))
        return self.embed(texts), tokens

    @staticmethod
    def _counts(words: list[str], other: float = 0.1) -> list[float]:
        row = [sum(word in concept for word in words) for concept in CONCEPTS]
        return [*row, other + sum(not any(w in c for c in CONCEPTS) for w in words)]


def _words(text: str) -> list[str]:
    return text.lower().replace("(", " ").replace(")", " ").split()


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def header(lines: int) -> str:
    """`lines` lines of filler code, one definition per chunk-sized block."""
    return "".join(f"extern int filler_{n}(void);\n" for n in range(lines))


DOCUMENT = (
    header(120)
    + "extern int gzopen(const char *path);\n"
    + header(120)
    + "extern int crc32(const char *buffer);\n"
    + header(120)
)


@pytest.fixture
def store():
    store = SessionStore()
    add_text(store, "zlib:1", DOCUMENT, tool="zlib", run=1)
    yield store
    store.close()


def answer_rank(hits, line: int) -> int | None:
    return next((n for n, h in enumerate(hits, 1) if h.start_line <= line <= h.end_line), None)


def test_pieces_are_runs_of_lines_without_blank_ones() -> None:
    body = "\n".join(f"line {n}" for n in range(PIECE_LINES + 2)) + "\n\n\n"
    assert pieces(body) == [
        "\n".join(f"line {n}" for n in range(PIECE_LINES)),
        f"line {PIECE_LINES}\nline {PIECE_LINES + 1}",
    ]
    assert pieces("\n  \n") == []


def test_keywords_rank_until_the_vectors_are_added_then_meanings_count(store) -> None:
    vectors, model = ResponseVectors(), ConceptModel()
    assert hybrid_response_hits(store, vectors, ["check the integrity"], "zlib:1", 5) is None
    assert not store.search("check the integrity", source="zlib:1")  # no word in common

    vectors.add(store, "zlib:1", model)
    # Both queries of a call, embedded in one pass.
    meaning, words = hybrid_response_hits(
        store, vectors, ["check the integrity", "gzopen"], "zlib:1", 5
    )
    assert answer_rank(meaning, 242) == 1
    assert meaning[0].label == "zlib:1" and len(meaning) <= 5
    assert answer_rank(words, 121) == 1  # a question the keywords answer keeps its answer first


def test_a_search_over_a_response_without_vectors_falls_back_to_keywords(store) -> None:
    vectors = ResponseVectors()
    vectors.add(store, "zlib:1", ConceptModel())
    add_text(store, "zlib:2", DOCUMENT, tool="zlib", run=2)
    assert hybrid_response_hits(store, vectors, ["integrity"], "zlib:", 5) is None
    assert hybrid_response_hits(store, vectors, ["integrity"], "zlib:1", 5) is not None


def test_evicted_responses_are_forgotten_and_closed_vectors_embed_nothing() -> None:
    store = SessionStore(max_bytes=len(DOCUMENT) + 1000)
    add_text(store, "zlib:1", DOCUMENT, tool="zlib", run=1)
    vectors = ResponseVectors()
    vectors.add(store, "zlib:1", ConceptModel())
    add_text(store, "zlib:2", DOCUMENT, tool="zlib", run=2)  # evicts zlib:1
    assert store.evicted_labels() == ["zlib:1"]
    assert hybrid_response_hits(store, vectors, ["integrity"], "zlib:", 5) is None
    assert not vectors.ready(["zlib:1"])

    model = ConceptModel()
    vectors.add(store, "zlib:1", model)  # gone: nothing embedded
    vectors.close()
    vectors.add(store, "zlib:2", model)
    assert model.embedded == [] and not vectors.ready(["zlib:2"])
    store.close()


def test_a_skipped_response_ranks_by_keywords_beside_ones_with_vectors(store) -> None:
    vectors = ResponseVectors()
    add_text(store, "zlib:2", DOCUMENT, tool="zlib", run=2)
    vectors.skip("zlib:2")
    assert hybrid_response_hits(store, vectors, ["integrity"], "zlib:2", 5) is None  # none to fuse
    assert hybrid_response_hits(store, vectors, ["integrity"], "zlib:", 5) is None  # zlib:1 pending
    vectors.add(store, "zlib:1", ConceptModel())
    (hits,) = hybrid_response_hits(store, vectors, ["check the integrity"], "zlib:", 5)
    assert hits[0].label == "zlib:1" and answer_rank(hits, 242) == 1


def test_documents_that_never_get_vectors_are_not_waited_for(store) -> None:
    add_text(store, "mcp/zlib/tool/crc32", "crc32: checksum of a buffer\n", tool="catalog", run=1)
    vectors = ResponseVectors()
    vectors.add(store, "zlib:1", ConceptModel())
    assert hybrid_response_hits(store, vectors, ["integrity"], None, 5) is None  # a catalog entry
    (hits,) = hybrid_response_hits(
        store, vectors, ["check the integrity"], None, 5, keywords_only="mcp/"
    )
    assert answer_rank(hits, 242) == 1


def test_the_embedding_ranking_keeps_the_best_chunks_in_order_up_to_its_limit(store) -> None:
    vectors = ResponseVectors()
    vectors.add(store, "zlib:1", ConceptModel())
    everything = vectors.rankings(["check the integrity"], ["zlib:1"], 1000)[0]
    assert len(everything) == len(set(everything)) > 3  # every chunk once
    for limit in (1, 2, 3):
        assert vectors.rankings(["check the integrity"], ["zlib:1"], limit) == [everything[:limit]]
    first = store.hits(everything[:1])[0]
    assert first.start_line <= 242 <= first.end_line


def test_a_chunk_answering_each_part_of_a_question_in_its_own_piece_ranks_first() -> None:
    store = SessionStore()
    document = (
        header(120)
        + "extern int crc32(const char *buffer);\n"  # line 121: half the question
        + header(120)
        + "extern int gzopen(const char *path);\n"  # line 242 and, two pieces on, 253
        + header(10)
        + "extern int crc32(const char *buffer);\n"
        + header(120)
    )
    add_text(store, "zlib:1", document, tool="zlib", run=1)
    vectors = ResponseVectors()
    vectors.add(store, "zlib:1", ConceptModel())
    first, *others = store.hits(vectors.rankings(["gzip checksum"], ["zlib:1"], 10)[0])
    assert first.start_line <= 242 and first.end_line >= 253  # both parts, one chunk
    assert any(hit.start_line <= 121 <= hit.end_line for hit in others)
    # No piece holds both parts: by whole-query cosine the two chunks would tie.
    assert not any("gzopen" in piece and "crc32" in piece for piece in pieces(first.body))
    store.close()


def test_a_search_over_several_responses_ranks_their_chunks_together(store) -> None:
    add_text(store, "zlib:2", DOCUMENT.replace("crc32", "adler32"), tool="zlib", run=2)
    vectors, model = ResponseVectors(), ConceptModel()
    vectors.add(store, "zlib:1", model)
    vectors.add(store, "zlib:2", model)
    ranked = store.hits(vectors.rankings(["check the integrity"], ["zlib:2", "zlib:1"], 1000)[0])
    assert ranked[0].label == "zlib:1" and ranked[0].start_line <= 242 <= ranked[0].end_line
    assert {hit.label for hit in ranked} == {"zlib:1", "zlib:2"}
    assert len({hit.chunk_id for hit in ranked}) == len(ranked)
