"""BM25 ranking of chunk ids in a session store's FTS tables (titles weighted above bodies)."""

import math
import sqlite3
from bisect import bisect_right
from collections.abc import Callable

from indexing.engine.fts import any_of
from indexing.engine.store_schema import FTS_TABLES

TITLE_WEIGHT = 5.0
MAX_SQL_RANGES = 32
"""A source made of more separate chunk id ranges is filtered while reading the ranking."""
BM25_K1 = 1.2
"""FTS5's bm25 constant k1: one phrase adds less than its idf * (k1 + 1) to a chunk's score."""
RARE_SHARE = 1 / 3
"""A query's rare phrases are its rarest ones that together match at most this share of what
all its phrases match; the others are common (see `Ranking.ranked_by_rare`)."""


def _bm25_idf(rows: int, matching: int) -> float:
    """The idf FTS5's bm25 gives a phrase held by `matching` of `rows` rows (at least 1e-6)."""
    idf = math.log((rows - matching + 0.5) / (matching + 0.5))
    return idf if idf > 0 else 1e-6


class Ranking:
    """Ranks the chunks of one store's FTS tables. The store holds its lock while ranking.

    `fts_rows(table)` is how many rows a table has (FTS5's row count for its idf).
    """

    def __init__(self, connection: sqlite3.Connection, fts_rows: Callable[[str], int]) -> None:
        self._connection = connection
        self.fts_rows = fts_rows

    def ranked(
        self, table: str, phrases: list[str], ranges: list[tuple[int, int]] | None, limit: int
    ) -> list[int]:
        """Chunk ids matching any of `phrases` in one FTS table, best BM25 first (ties: by id).

        `ranges` are the chunk id ranges to keep (None: every chunk).
        """
        expression = any_of(phrases)
        if ranges is not None and len(ranges) > MAX_SQL_RANGES:
            return self._ranked_in_python(table, expression, ranges, limit)
        # Not with a source, which already bounds what is scored, nor for trigrams: matching
        # a trigram phrase three times (count, AND, NOT) costs more than scoring its chunks.
        if ranges is None and table == FTS_TABLES[0]:
            ranked = self.ranked_by_rare(table, phrases, limit)
            if ranked is not None:
                return ranked
        condition, parameters = "", []
        if ranges is not None:
            condition = " AND (" + " OR ".join(["rowid BETWEEN ? AND ?"] * len(ranges)) + ")"
            parameters = [bound for pair in ranges for bound in pair]
        rows = self._connection.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ?{condition}"
            f" ORDER BY bm25({table}, ?, 1.0), rowid LIMIT ?",
            (expression, *parameters, TITLE_WEIGHT, limit),
        )
        return [chunk_id for (chunk_id,) in rows]

    def ranked_by_rare(self, table: str, phrases: list[str], limit: int) -> list[int] | None:
        """`ranked` over every chunk, scoring only the chunks that hold a rare phrase; None
        when it cannot tell that this gives the same ranking.

        FTS5 computes bm25 for every chunk that matches, and a common word matches tens of
        thousands: nearly all of a query's time (counting a phrase's chunks costs a tenth of
        scoring them). The chunks holding a rare phrase are ranked by two queries, those with
        a common phrase too (`rare AND common`) and the others (`rare NOT common`): each names
        every phrase once, so bm25 gives a chunk the score the OR of all phrases gives it (a
        phrase a chunk lacks adds 0; the sum runs in another order, so up to rounding). A
        chunk holding none of the rare phrases scores below `ceiling`: when the `limit`-th
        best chunk holding one scores above it, no other chunk can enter the ranking.
        Otherwise (too few such chunks, or weak ones) the caller ranks every chunk.
        """
        split = self._rare_phrases(table, phrases, limit)
        if split is None:
            return None
        rare, ceiling = split
        any_rare = any_of(rare)
        any_common = any_of([phrase for phrase in phrases if phrase not in rare])
        rows = self._connection.execute(
            f"SELECT rowid AS id, bm25({table}, ?, 1.0) AS score FROM {table} WHERE {table} MATCH ?"
            f" UNION ALL SELECT rowid, bm25({table}, ?, 1.0) FROM {table} WHERE {table} MATCH ?"
            " ORDER BY score, id LIMIT ?",
            (
                TITLE_WEIGHT,
                f"({any_rare}) AND ({any_common})",
                TITLE_WEIGHT,
                f"({any_rare}) NOT ({any_common})",
                limit,
            ),
        ).fetchall()
        if len(rows) < limit or -rows[-1][1] <= ceiling:  # bm25() is the score negated
            return None
        return [chunk_id for chunk_id, _ in rows]

    def _rare_phrases(
        self, table: str, phrases: list[str], limit: int
    ) -> tuple[list[str], float] | None:
        """The rare phrases (see RARE_SHARE), and the score no chunk holding only common
        ones reaches: FTS5 gives a phrase at most its idf * (k1 + 1).

        None for a single phrase, or rare ones matching fewer than `limit` chunks.
        """
        if len(phrases) < 2:
            return None
        counted = sorted((self._chunks_matching(table, phrase), phrase) for phrase in phrases)
        total = sum(count for count, _ in counted)
        rare: list[str] = []
        rare_count = 0
        for count, phrase in counted[:-1]:
            if rare_count + count > total * RARE_SHARE:
                break
            rare.append(phrase)
            rare_count += count
        if rare_count < limit:
            return None
        rows = self.fts_rows(table)
        common = [count for count, _ in counted[len(rare) :]]
        ceiling = (BM25_K1 + 1) * sum(_bm25_idf(rows, count) for count in common)
        return rare, ceiling * (1 + 1e-9)  # a hair above: rounding in SQLite's sum

    def _chunks_matching(self, table: str, phrase: str) -> int:
        """How many chunks hold `phrase` (FTS5's count for its idf)."""
        (count,) = self._connection.execute(
            f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (phrase,)
        ).fetchone()
        return count

    def _ranked_in_python(
        self, table: str, expression: str, ranges: list[tuple[int, int]], limit: int
    ) -> list[int]:
        """`ranked` for many scattered documents: walk the ranking, keep ids in `ranges`."""
        starts = [first for first, _ in ranges]
        rows = self._connection.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ?"
            f" ORDER BY bm25({table}, ?, 1.0), rowid",
            (expression, TITLE_WEIGHT),
        )
        kept: list[int] = []
        for (chunk_id,) in rows:
            at = bisect_right(starts, chunk_id) - 1
            if at >= 0 and chunk_id <= ranges[at][1]:
                kept.append(chunk_id)
                if len(kept) == limit:
                    break
        return kept
