"""indexing.engine.int8_vectors: vectors held as int8 with a scale per row."""

import pytest

np = pytest.importorskip("numpy", reason="numpy (optional, for embeddings) not installed")

from indexing.engine.int8_vectors import dot, group_maxima, quantise  # noqa: E402


def test_quantised_rows_give_back_their_vectors_within_a_step() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((50, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    quantized, scales = quantise(matrix)
    assert quantized.dtype == np.int8 and scales.shape == (50,)
    assert np.abs(quantized).max(axis=1).tolist() == [127] * 50  # each row uses its range
    restored = quantized.astype(np.float32) * scales[:, None]
    np.testing.assert_allclose(restored, matrix, atol=float(scales.max()) / 2 + 1e-7)


@pytest.mark.parametrize("rows", [0, 1, 256, 517])
def test_the_product_is_the_float_product_to_a_part_in_ten_thousand(rows) -> None:
    rng = np.random.default_rng(7)
    quantized = rng.integers(-127, 128, (rows, 384), dtype=np.int8)
    vector = rng.standard_normal(384).astype(np.float32)
    vectors = rng.standard_normal((384, 6)).astype(np.float32)
    for right in (vector, vectors):
        expected = quantized.astype(np.float64) @ right.astype(np.float64)
        product = dot(quantized, right)
        assert product.shape == expected.shape and product.dtype == np.float32
        largest = 127 * np.abs(right).sum(axis=0).max()  # no product can be larger
        np.testing.assert_allclose(product, expected, rtol=0, atol=1e-4 * largest)


def test_the_product_is_not_the_int8_rounding_of_the_vector() -> None:
    rng = np.random.default_rng(5)
    quantized = rng.integers(-127, 128, (64, 384), dtype=np.int8)
    vector = rng.standard_normal(384).astype(np.float32)
    expected = quantized.astype(np.float64) @ vector.astype(np.float64)
    rounded, scale = quantise(vector[None])
    one_part = (quantized.astype(np.float64) @ rounded[0].astype(np.float64)) * scale[0]
    error, one_part_error = np.abs(dot(quantized, vector) - expected), np.abs(one_part - expected)
    assert error.max() < one_part_error.max() / 50


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
    within = 1e-4 * np.abs(expected).max()  # the products' precision (see `dot`)
    np.testing.assert_allclose(maxima, expected, rtol=0, atol=within)
    one = group_maxima(quantized, scales, firsts, vectors[:, 0])  # one vector: one value a group
    np.testing.assert_allclose(one, expected[:, 0], rtol=0, atol=within)
