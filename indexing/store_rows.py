"""A document's FTS rows written (or deleted) a batch of chunks at a time, in one statement.

Every chunk's body is a byte range of the document's UTF-8 text. A batch binds its part of
the text once, as a blob, and SQLite slices each body out of it (`substr` counts bytes in
a blob): no body becomes a Python string, and the whole batch is one statement, run with
Python's GIL released.
"""

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import orjson

from indexing.chunker import Chunk, Lines
from indexing.text import LINE_PART_CHARS, part_count, sanitize


class RowBatch(NamedTuple):
    """The parameters of `insert_rows_sql`: first rowid, the text, the rows' JSON."""

    first_rowid: int
    text: memoryview
    rows: bytes  # [[title, start, length], ...]: bytes of `text`, in rowid order


RELEASED_BATCH = RowBatch(0, memoryview(b""), b"[]")
"""Writes nothing: run last, so the cached statement no longer holds a batch's text."""


def insert_rows_sql(table: str, *, delete: bool = False) -> str:
    """The statement writing one `RowBatch` into FTS `table`, or forgetting it (contentless
    tables forget a row given exactly the title and body it was written with)."""
    columns, command = (
        ("rowid, title, body", "") if not delete else (f"{table}, rowid, title, body", "'delete', ")
    )
    return (
        f"INSERT INTO {table} ({columns}) SELECT {command}? + key, value ->> 0,"
        " ifnull(CAST(substr(?, (value ->> 1) + 1, value ->> 2) AS TEXT), '') FROM json_each(?)"
    )


def row_batches(
    lines: Lines, chunks: Sequence[Chunk], first_rowid: int, batch_bytes: int
) -> Iterator[RowBatch]:
    """The rows of `chunks` (rowids from `first_rowid`), a batch once they span `batch_bytes`
    of text (a blob SQLite copies once)."""
    view = memoryview(lines.text)
    batch: list[tuple[str, int, int]] = []
    low = high = 0
    for title, start, end in _byte_ranges(lines, chunks):
        if batch and (high - low >= batch_bytes or start < low):
            yield _batch(first_rowid, view, low, high, batch)
            first_rowid += len(batch)
            batch = []
        if not batch:
            low = high = start
        batch.append((title, start, end))
        high = max(high, end)
    if batch:
        yield _batch(first_rowid, view, low, high, batch)


def _batch(
    first_rowid: int, view: memoryview, low: int, high: int, ranges: list[tuple[str, int, int]]
) -> RowBatch:
    rows = [(title, start - low, end - start) for title, start, end in ranges]
    try:
        encoded = orjson.dumps(rows)
    except orjson.JSONEncodeError:  # a title holding a lone surrogate (from a JSON key)
        encoded = orjson.dumps([(sanitize(title), *rest) for title, *rest in rows])
    return RowBatch(first_rowid, view[low:high], encoded)


def _byte_ranges(lines: Lines, chunks: Sequence[Chunk]) -> Iterator[tuple[str, int, int]]:
    """(title, start, end) of each chunk's body in the text: what `Lines.span` returns."""
    starts, count = lines.starts, len(lines)
    part_bounds: list[int] = []
    parted_line = 0
    for title, start_line, end_line, part in chunks:
        if part is None:
            last = min(end_line, count)
            if last < start_line:
                yield title, 0, 0
            else:
                yield title, starts[start_line - 1], starts[last] - 1
            continue
        if start_line > count:
            yield title, 0, 0
            continue
        if start_line != parted_line:
            parted_line, part_bounds = start_line, _part_bounds(lines, start_line - 1)
        last_part = len(part_bounds) - 1
        begin = part_bounds[min(part - 1, last_part)]
        yield title, begin, part_bounds[min(part, last_part)]


def _part_bounds(lines: Lines, index: int) -> list[int]:
    """Where each `N-M` part of line `index` starts in the text, and where the line ends."""
    start, end = lines.starts[index], lines.starts[index + 1] - 1
    if lines.ascii:
        return [*range(start, end, LINE_PART_CHARS), end]
    line = lines[index]
    bounds = [start]
    for part in range(part_count(len(line))):
        piece = line[part * LINE_PART_CHARS : (part + 1) * LINE_PART_CHARS]
        bounds.append(bounds[-1] + len(piece.encode()))
    return bounds
