"""indexing.engine.int8_vectors: vectors held as int8 with a scale per row."""

import pytest

np = pytest.importorskip("numpy", reason="numpy (optional, for embeddings) not installed")

from indexing.engine.int8_vectors import DOT_ROWS, dot, group_maxima, quantise  # noqa: E402


def test_quantised_rows_give_back_their_vectors_within_a_step() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((50, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    quantized, scales = quantise(matrix)
    assert quantized.dtype == np.int8 and scales.shape == (50,)
    assert np.abs(quantized).max(axis=1).tolist() == [127] * 50  # each row uses its range
    restored = quantized.astype(np.float32) * scales[:, None]
    np.testing.assert_allclose(restored, matrix, atol=float(scales.max()) / 2 + 1e-7)


@pytest.mark.parametrize("rows", [0, 1, DOT_ROWS, 2 * DOT_ROWS + 5])
def test_the_blocked_product_is_the_whole_product(rows) -> None:
    rng = np.random.default_rng(7)
    quantized = rng.integers(-127, 128, (rows, 384), dtype=np.int8)
    vector = rng.standard_normal(384).astype(np.float32)
    vectors = rng.standard_normal((384, 6)).astype(np.float32)
    for right in (vector, vectors):
        expected = quantized.astype(np.float32) @ right
        product = dot(quantized, right)
        assert product.shape == expected.shape
        np.testing.assert_allclose(product, expected, rtol=1e-4, atol=1e-3)  # float32 sums


def test_group_maxima_are_each_groups_best_scaled_product() -> None:
    rng = np.random.default_rng(11)
    matrix = rng.standard_normal((9, 384)).astype(np.float32)
    quantized, scales = quantise(matrix)
    firsts = np.array([0, 2, 7])  # groups of rows 0-1, 2-6, 7-8
    restored = quantized.astype(np.float32) * scales[:, None]
    vectors = rng.standard_normal((384, 3)).astype(np.float32)
    groups = [(0, 2), (2, 7), (7, 9)]
    expected = np.stack([(restored[a:b] @ vectors).max(axis=0) for a, b in groups])
    maxima = group_maxima(quantized, scales, firsts, vectors)
    np.testing.assert_allclose(maxima, expected, rtol=1e-4)
    one = group_maxima(quantized, scales, firsts, vectors[:, 0])  # one vector: one value a group
    np.testing.assert_allclose(one, expected[:, 0], rtol=1e-4)
