"""indexing.engine.embeddings: reciprocal rank fusion, and the numpy all-MiniLM-L6-v2 encoder.

The encoder tests need the model folder (`$LOCALROUTER_EMBEDDING_MODEL`, var/models/
all-MiniLM-L6-v2, which `make test` fetches) and are skipped without it; so is everything when the
optional numpy/safetensors/tokenizers packages are not installed.
"""

import math

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402

from indexing.engine.embeddings import (  # noqa: E402
    Embedder,
    _gelu,
    cosine_ranking,
)
from indexing.engine.fusion import reciprocal_rank_fusion  # noqa: E402
from indexing.engine.model_folder import model_folder_ready  # noqa: E402

# sentence-transformers' all-MiniLM-L6-v2 embedding of "hello world", first five dimensions
# (the canonical values fastembed's test suite checks against, atol 1e-3).
HELLO_WORLD = np.array([-0.034478, 0.03102, 0.00673, 0.02611, -0.039362])


def test_gelu_is_x_times_the_normal_cdf_for_either_sign() -> None:
    x = np.array([-12.0, -5.0, -1.5, -0.3, -1e-4, 0.0, 1e-4, 0.3, 1.5, 5.0, 12.0], np.float32)
    x = np.concatenate([x, np.linspace(-4, 4, 401, dtype=np.float32)])
    exact = [value * 0.5 * (1 + math.erf(value / math.sqrt(2))) for value in x.tolist()]
    np.testing.assert_allclose(_gelu(x.reshape(-1, 4)).ravel(), exact, rtol=0, atol=2e-6)


def test_fusion_rewards_agreement_and_keeps_first_rank() -> None:
    lexical = ["a", "b", "a", "c"]  # the second "a" is ignored; "c" stays at rank 4
    dense = ["c", "b", "d"]
    fused = reciprocal_rank_fusion([lexical, dense], k=60)
    scores = {"a": 1 / 61, "b": 1 / 62 + 1 / 62, "c": 1 / 64 + 1 / 61, "d": 1 / 63}
    assert fused[0] == "b"  # second in both beats first in one and fourth in the other
    assert fused == sorted(scores, key=lambda key: -scores[key])
    assert reciprocal_rank_fusion([]) == []


def test_weighted_fusion_lets_the_heavier_ranking_lead() -> None:
    lexical, dense = ["a", "b"], ["b", "c"]
    assert reciprocal_rank_fusion([lexical, dense], k=60) == ["b", "a", "c"]
    # weight 3: "c" (second in dense only, 3/62) beats "a" (first in lexical only, 1/61)
    assert reciprocal_rank_fusion([lexical, dense], k=60, weights=(1, 3)) == ["b", "c", "a"]


def test_cosine_ranking_orders_by_dot_product() -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    query = np.array([0.0, 1.0], dtype=np.float32)
    assert cosine_ranking(query, matrix, ["x", "y", "z"]) == ["y", "z", "x"]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    path = settings.EMBEDDING_MODEL_DIR
    if not model_folder_ready(path):
        pytest.skip(
            "all-MiniLM-L6-v2 model folder not found (set LOCALROUTER_EMBEDDING_MODEL, or run "
            "`make embeddings`)"
        )
    return Embedder.from_path(path)


def test_matches_sentence_transformers_reference(embedder: Embedder) -> None:
    vectors = embedder.embed(["hello world", "flag embedding"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors[0, :5], HELLO_WORLD, atol=1e-4)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_padding_and_batching_do_not_change_vectors(embedder: Embedder) -> None:
    alone = embedder.embed(["list files in a folder"])
    texts = ["a much longer sentence, so that the short one is padded " * 3] * 3
    mixed = embedder.embed([*texts, "list files in a folder"], batch_size=2)
    np.testing.assert_allclose(mixed[-1], alone[0], atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_token_vectors_come_from_the_same_pass_whatever_the_batch(embedder: Embedder) -> None:
    texts = ["create a directory", "hello world, a somewhat longer sentence to pad the rest"]
    sentences, tokens = embedder.embed_with_tokens(texts)
    np.testing.assert_allclose(sentences, embedder.embed(texts), atol=1e-6)
    first = tokens[0]
    assert first.ids == embedder.tokenizer.encode(texts[0]).ids[1:-1]  # no [CLS], [SEP]
    assert first.vectors.shape == (len(first.ids), embedder.dimensions)
    np.testing.assert_allclose(np.linalg.norm(first.vectors, axis=1), 1.0, atol=1e-5)
    _, (alone,) = embedder.embed_with_tokens(texts[:1])
    np.testing.assert_allclose(alone.vectors, first.vectors, atol=1e-5)  # padding aside
    empty, no_tokens = embedder.embed_with_tokens([])
    assert empty.shape == (0, 384) and no_tokens == []


def test_long_texts_are_truncated(embedder: Embedder) -> None:
    assert embedder.tokens("word " * 1000) == embedder.max_tokens == 256
    assert np.isfinite(embedder.embed(["word " * 1000])).all()


def test_similar_meanings_rank_first(embedder: Embedder) -> None:
    documents = ["Create a GitHub issue", "List directory contents", "Take a browser screenshot"]
    matrix = embedder.embed(documents)
    query = embedder.embed(["list files in a folder"])[0]
    assert cosine_ranking(query, matrix, documents)[0] == "List directory contents"
    assert matrix[1] @ query > matrix[0] @ query + 0.3


def test_a_catalog_without_deferred_tools_ranks_nothing(embedder: Embedder) -> None:
    from indexing.engine.hybrid import CatalogVectors

    vectors = CatalogVectors([("mcp/files", "files: the server's instructions")], embedder)
    assert vectors.rankings(["read a file"], None) == [[]]


def test_catalog_ranking_holds_each_tool_under_the_source_once(embedder: Embedder) -> None:
    from indexing.engine import hybrid

    def tool(server: str, name: str, description: str) -> tuple[str, str]:
        return (f"mcp/{server}/tool/{server}__{name}", f"{server}__{name}\n\n{description}")

    documents = [
        tool("files", "make_directory", "Create a new directory (folder) at a path"),
        tool("files", "remove_file", "Delete one file"),
        *(tool("web", f"page_{n}", f"Open web page {n} in a browser tab") for n in range(70)),
    ]
    vectors = hybrid.CatalogVectors(documents, embedder)
    everything = vectors.rankings(["make a new folder"], None)[0]
    assert sorted(everything) == sorted(label for label, _ in documents)  # re-scored head + rest
    assert len(everything) > hybrid.TOKEN_MATCHED
    assert everything[0] == "mcp/files/tool/files__make_directory"
    assert vectors.rankings(["make a new folder"], "mcp/files/") == [
        ["mcp/files/tool/files__make_directory", "mcp/files/tool/files__remove_file"]
    ]
    # Several queries at once (one pass of the model): each its own ranking.
    folder, delete = vectors.rankings(["make a new folder", "delete one file"], "mcp/files/")
    assert folder[0] == "mcp/files/tool/files__make_directory"
    assert delete[0] == "mcp/files/tool/files__remove_file"


def test_catalog_embeddings_log_when_they_start_and_finish_with_counts(
    embedder: Embedder, caplog
) -> None:
    import logging

    from indexing.engine.hybrid import CatalogVectors

    caplog.set_level(logging.INFO, logger="indexing.engine.hybrid")
    documents = [
        ("mcp/files/tool/files__zz_unique_read", "files__zz_unique_read\n\nRead a unique file"),
        ("mcp/files/tool/files__zz_unique_list", "files__zz_unique_list\n\nList unique folders"),
    ]
    CatalogVectors(documents, embedder)
    messages = [r.getMessage() for r in caplog.records if r.name == "indexing.engine.hybrid"]
    assert messages[0] == "catalog embeddings started: 2 tool(s), 0 already embedded"
    assert messages[1].startswith("catalog embeddings finished: 2 tool(s) in ")
    caplog.clear()
    CatalogVectors(documents, embedder)  # cached: no work, no lines
    assert not [r for r in caplog.records if r.name == "indexing.engine.hybrid"]
