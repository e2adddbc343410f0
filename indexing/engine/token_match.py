"""Token-level matching of a request against catalog entries (late interaction).

Each token of the request, as the model's last layer sees it in its sentence, meets the
most similar token of an entry's embedded text; the entry scores the mean of those best
matches, each request token weighted by the square root of its inverse document frequency
among the catalog's entries, so that `folder` meeting `directory` counts and `the` meeting
`the` hardly does. Added to the sentence cosine of the entries that cosine ranks first, it
tells apart tools whose whole descriptions read alike (see `indexing.engine.hybrid`).
Token vectors are held as int8: about 0.4 KB per token, some 55 tokens per tool. Needs
numpy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from indexing.engine.embeddings import TokenVectors
from indexing.engine.int8_vectors import group_maxima, quantise


@dataclass(frozen=True, slots=True)
class EntryTokens:
    """One entry's token ids and their vectors, as int8 with a scale per token."""

    ids: tuple[int, ...]
    quantized: np.ndarray
    scales: np.ndarray


def entry_tokens(tokens: TokenVectors) -> EntryTokens:
    """What an entry's token vectors are held as (an entry without tokens gets one blank)."""
    vectors = tokens.vectors if len(tokens.ids) else np.zeros((1, tokens.vectors.shape[1]))
    quantized, scales = quantise(vectors.astype(np.float32))
    return EntryTokens(tuple(tokens.ids), quantized, scales)


class TokenMatch:
    """Token-level similarity of a request to entries of a list."""

    def __init__(self, entries: Sequence[EntryTokens]) -> None:
        self._entries = list(entries)
        self._holding = Counter(token for entry in entries for token in set(entry.ids))

    @property
    def nbytes(self) -> int:
        """Bytes of the token vectors and scales held."""
        return sum(entry.quantized.nbytes + entry.scales.nbytes for entry in self._entries)

    def _weight(self, token: int) -> float:
        """sqrt(idf) of a request token among the entries (never below 0)."""
        idf = math.log((len(self._entries) + 1) / (self._holding.get(token, 0) + 0.5))
        return math.sqrt(max(idf, 0.0))

    def scores(self, request: TokenVectors, which: Sequence[int]) -> np.ndarray:
        """One score per entry of `which` (indices), in that order: the weighted mean of each
        request token's best cosine among the entry's tokens (zeros when the request has no
        telling token)."""
        weights = np.array([self._weight(token) for token in request.ids], np.float32)
        if not len(which) or not weights.sum():
            return np.zeros(len(which), np.float32)
        chosen = [self._entries[i] for i in which]
        lengths = [len(entry.quantized) for entry in chosen]
        quantized = np.concatenate([entry.quantized for entry in chosen])
        scales = np.concatenate([entry.scales for entry in chosen])
        best = group_maxima(quantized, scales, np.cumsum([0, *lengths[:-1]]), request.vectors.T)
        return best @ (weights / weights.sum())
