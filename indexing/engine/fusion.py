"""Reciprocal rank fusion: one ranking from several (keyword and substring, or keyword and
embedding), as in Cormack, Clarke and Büttcher (2009)."""

from collections.abc import Hashable, Iterable, Sequence

FUSION_K = 60


def reciprocal_rank_fusion[T: Hashable](
    rankings: Iterable[Sequence[T]], k: int = FUSION_K, weights: Sequence[float] | None = None
) -> list[T]:
    """Fuse best-first rankings: score(d) = sum of w / (k + rank) over the rankings holding d,
    w the ranking's weight (1 for each when `weights` is None).

    A key repeated within one ranking counts at its first (best) rank only; ties keep the order
    in which keys were first seen, earlier rankings first.
    """
    scores: dict[T, float] = {}
    for number, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[number]
        seen: set[T] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda key: -scores[key])
