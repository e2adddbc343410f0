"""Unit vectors held as int8 with a scale per vector, and products with them in float32.

A quarter of float32's memory; rankings by cosine come out the same on the project's
retrieval benchmarks. Needs numpy: import only where embeddings are wanted.
"""

from __future__ import annotations

import numpy as np

DOT_ROWS = 256


def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`matrix` (one vector per row) as int8 rows and the scale of each row."""
    scales = np.abs(matrix).max(axis=1, keepdims=True).clip(1e-12) / 127
    return np.round(matrix / scales).astype(np.int8), scales[:, 0].astype(np.float32)


def dot(quantized: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """`quantized @ vectors` in float32 (`vectors`: one vector, or one per column), without
    the row scales, converting `DOT_ROWS` rows at a time: the converted block stays in the
    CPU's cache (5x faster than converting 190,000 rows at once, and no copy four times
    their size; 256 rows a block took 20-28% less time than 2,048 over 172,000 rows)."""
    out = np.empty((len(quantized), *vectors.shape[1:]), np.float32)
    for at in range(0, len(quantized), DOT_ROWS):
        block = quantized[at : at + DOT_ROWS].astype(np.float32)
        np.matmul(block, vectors, out=out[at : at + DOT_ROWS])
    return out


def group_maxima(
    quantized: np.ndarray, scales: np.ndarray, firsts: np.ndarray, vectors: np.ndarray
) -> np.ndarray:
    """For rows in consecutive groups (each starting at its entry of `firsts`), the largest
    scaled product of a group's rows with `vectors` (one vector: one value per group; one
    vector per column: one row per group, one column per vector)."""
    products = dot(quantized, vectors) * scales.reshape(-1, *[1] * (vectors.ndim - 1))
    return np.maximum.reduceat(products, firsts, axis=0)
