"""Static token vectors: a response searched right after it is indexed ranks by keywords and
a fast approximation of meaning; the table is built once per model and kept by its digest."""

import logging

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from indexing.api.response_embeddings import (  # noqa: E402
    APPROXIMATE_NOTE,
    ResponseEmbeddings,
)
from indexing.engine import static_vectors  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.model_folder import model_folder_ready  # noqa: E402
from indexing.engine.response_vectors import ResponseVectors  # noqa: E402
from indexing.engine.static_vectors import (  # noqa: E402
    TABLE_FILE,
    StaticTableError,
    load_table,
    table_for,
)
from indexing.engine.store import SessionStore  # noqa: E402

LABELS = LabelCounter()


@pytest.fixture(scope="module")
def table(model):
    """The bundled model's table, as `make` keeps it in the model folder."""
    return table_for(settings.EMBEDDING_MODEL_DIR, model)


@pytest.fixture
def loaded(table, monkeypatch):
    """The process has its table (as once `load_in_background` read it)."""
    monkeypatch.setattr(static_vectors, "_table", table)
    return table


def _compressed(store: SessionStore, text: str):
    compression = ResponseCompressor(store, LABELS).prepare("files__read", text, threshold=1024)
    assert compression is not None
    return compression


class FakeModel:
    """What building a table needs of a model, computed in microseconds: a token's vector
    is the unit mean of the rows of `word` for `[CLS]`, it and `[SEP]`."""

    pooling = "mean"

    def __init__(self, identity: str, hidden: int = 8) -> None:
        self.identity = identity
        self.tokenizer = Tokenizer.from_file(str(settings.EMBEDDING_MODEL_DIR / "tokenizer.json"))
        self.word = np.random.default_rng(0).normal(size=(30_522, hidden)).astype(np.float32)
        self.hidden = hidden
        self.forwarded = 0

    def pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.forwarded += len(ids)
        rows = self.word[ids].mean(axis=1)  # mean pooling (no padding in the table's batches)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def fake():
    if not model_folder_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("all-MiniLM-L6-v2 tokenizer not found (run `make embeddings`)")
    return FakeModel("digest-a")


ZLIB = (settings.BASE_DIR / "benchmarks" / "retrieval_docs" / "zlib-h.h").read_text()
PARAPHRASE = "start a new compressor with a chosen level"  # no word of its answer line
ANSWER = "ZEXTERN int ZEXPORT deflateInit OF((z_streamp strm, int level));"


def _answer_rank(hits) -> int | None:
    return next((rank for rank, hit in enumerate(hits, 1) if ANSWER in hit.body), None)


def test_a_search_right_after_indexing_ranks_a_paraphrase_by_static_vectors(model, loaded, store):
    compression = _compressed(store, ZLIB)  # 95 KiB: its full vectors take CPU-seconds
    responses = ResponseEmbeddings(model_dir=settings.EMBEDDING_MODEL_DIR, max_bytes=2**20)
    responses.schedule(store, compression)  # as the gateway, after the placeholder
    label = compression.index().label
    ranked = responses.search(store, [PARAPHRASE], label, 5)
    responses.close()
    keywords = store.search(PARAPHRASE, source=label, limit=5)
    assert _answer_rank(keywords) is None  # keywords alone miss it
    assert ranked is not None and ranked.note.startswith(APPROXIMATE_NOTE)
    assert "vectors are still being computed (expected in about" in ranked.note
    assert _answer_rank(ranked.hits[0]) <= 3


def test_a_search_before_the_table_is_loaded_starts_loading_it_and_does_not_wait(
    model, table, store, monkeypatch
):
    monkeypatch.setattr(static_vectors, "_table", None)  # a worker's first response
    monkeypatch.setattr(static_vectors, "_loading", None)
    label = _compressed(store, ZLIB).index().label
    responses = ResponseEmbeddings(
        model_dir=settings.EMBEDDING_MODEL_DIR, max_bytes=2**20, candidates=0
    )
    first = responses.search(store, [PARAPHRASE], label, 5)
    assert first.note.startswith("Ranked by keywords alone")
    static_vectors._loading.join(30)  # read from the model folder, on its own thread
    assert static_vectors.loaded_table().identity == model.identity
    again = responses.search(store, [PARAPHRASE], label, 5)
    responses.close()
    assert again.note.startswith(APPROXIMATE_NOTE) and _answer_rank(again.hits[0]) <= 3


def test_full_vectors_replace_a_responses_static_ones(model, table, store):
    label = _compressed(store, ZLIB[:8_000]).index().label
    vectors = ResponseVectors()
    vectors.approximate(store, label, model, table)
    assert vectors.ready([label], approximate=True) and not vectors.ready([label])
    static_bytes = vectors.nbytes
    approximate = vectors.rankings([PARAPHRASE], [label], 5, approximate=True)
    vectors.add(store, label, model)
    assert vectors.ready([label]) and vectors.nbytes == static_bytes  # one set, same size
    assert vectors.rankings([PARAPHRASE], [label], 5, approximate=True) == vectors.rankings(
        [PARAPHRASE], [label], 5
    )
    vectors.approximate(store, label, model, table)  # too late: the full ones stay
    assert vectors.nbytes == static_bytes and approximate[0]


def test_the_table_is_built_once_and_reused_by_the_models_digest(fake, tmp_path):
    built = table_for(tmp_path, fake)
    assert fake.forwarded == 30_522  # every vocabulary token once
    again = FakeModel("digest-a")
    read = table_for(tmp_path, again)
    assert again.forwarded == 0
    assert np.array_equal(read.quantized, built.quantized)
    assert np.array_equal(read.scales, built.scales)
    other = FakeModel("digest-b")
    with pytest.raises(StaticTableError, match="built from another model"):
        load_table(tmp_path / TABLE_FILE, other)
    table_for(tmp_path, other)  # built again, for this model, and kept
    assert other.forwarded == 30_522
    assert load_table(tmp_path / TABLE_FILE, FakeModel("digest-b")).identity == "digest-b"


def test_a_table_of_another_shape_or_unreadable_is_built_again(fake, tmp_path, caplog):
    table_for(tmp_path, FakeModel("digest-a", hidden=4))
    with pytest.raises(StaticTableError, match=r"shape \(30522, 4\), expected \(30522, 8\)"):
        load_table(tmp_path / TABLE_FILE, fake)
    with caplog.at_level(logging.WARNING):
        table_for(tmp_path, fake)
    assert "building the table again" in caplog.text and fake.forwarded == 30_522
    (tmp_path / TABLE_FILE).write_bytes(b"not a table")
    with pytest.raises(StaticTableError, match="not a static table"):
        load_table(tmp_path / TABLE_FILE, fake)
    assert table_for(tmp_path, FakeModel("digest-a")).quantized.shape == (30_522, 8)
    assert load_table(tmp_path / TABLE_FILE, fake).identity == "digest-a"  # written again


def test_a_folder_that_cannot_be_written_keeps_the_table_in_memory(fake, tmp_path, caplog):
    (tmp_path / TABLE_FILE).mkdir()  # where the file would go: a folder, not empty
    (tmp_path / TABLE_FILE / "kept").write_text("")
    with caplog.at_level(logging.WARNING):
        built = table_for(tmp_path, fake)
    assert built.quantized.shape == (30_522, 8)
    assert "table kept in memory only" in caplog.text
    assert sorted(path.name for path in tmp_path.iterdir()) == [TABLE_FILE]  # no partial file


def test_a_pieces_static_vector_weighs_its_rare_tokens_most(fake, tmp_path):
    table = table_for(tmp_path, fake)
    texts = ["the value of the value banana", "the value", "of the value"]
    quantized, scales = table.piece_vectors(texts)
    encoded = [table.tokenizer.encode(text, add_special_tokens=False).ids for text in texts]
    ids = encoded[0]
    holding = np.array([sum(i in other for other in encoded) for i in ids])
    assert holding.tolist() == [3, 3, 2, 3, 3, 1]  # "banana" once, "of" twice
    weights = np.log1p(3 / holding)
    rows = table.quantized[ids] * table.scales[ids, None]
    expected = (rows * weights[:, None]).sum(axis=0)
    assert np.allclose(quantized[0] * scales[0], expected / np.linalg.norm(expected), atol=0.01)
    plain = rows.mean(axis=0)
    assert not np.allclose(quantized[0] * scales[0], plain / np.linalg.norm(plain), atol=0.01)
