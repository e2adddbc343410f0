"""FTS rows written (or deleted) a batch of chunks at a time, in one statement.

Every chunk's body is a byte range of its document's UTF-8 text. A batch binds the text
its chunks cover once, as a blob, and SQLite slices each body out of it (`substr` counts
bytes in a blob): no body becomes a Python string, and the whole batch (chunks of one
large document, or of hundreds of small ones) is one statement, run with Python's GIL
released.
"""

from collections.abc import Iterable, Iterator
from typing import NamedTuple

import orjson

from indexing.engine.chunker import ChunkColumns, Lines
from indexing.engine.text import LINE_PART_CHARS, part_count, sanitize


class RowBatch(NamedTuple):
    """The parameters of `insert_rows_sql`: the text, and the rows' JSON."""

    text: bytes | bytearray
    rows: bytes  # [[rowid, title, start, length], ...]: bytes of `text`


class RowSource(NamedTuple):
    """Chunks of one document, to be written with rowids from `first_rowid`."""

    lines: Lines
    chunks: ChunkColumns
    first_rowid: int


RELEASED_BATCH = RowBatch(b"", b"[]")
"""Writes nothing: run last, so the cached statement no longer holds a batch's text."""


def insert_rows_sql(table: str, *, delete: bool = False) -> str:
    """The statement writing one `RowBatch` into FTS `table`, or forgetting it (contentless
    tables forget a row given exactly the title and body it was written with)."""
    columns, command = (
        ("rowid, title, body", "") if not delete else (f"{table}, rowid, title, body", "'delete', ")
    )
    return (
        f"INSERT INTO {table} ({columns}) SELECT {command}value ->> 0, value ->> 1,"
        " ifnull(CAST(substr(?, (value ->> 2) + 1, value ->> 3) AS TEXT), '') FROM json_each(?)"
    )


def row_batches(sources: Iterable[RowSource], batch_bytes: int) -> Iterator[RowBatch]:
    """The rows of every source's chunks, a batch once they cover `batch_bytes` of text."""
    batch = _Batch()
    for lines, chunks, rowid in sources:
        text = lines.text  # sliced, never viewed: it may still be growing (`Lines.writing`)
        low = high = -1  # the part of this document's text the batch takes: low..high
        for title, (start, end) in zip(chunks.titles, _byte_ranges(lines, chunks), strict=True):
            if low >= 0 and (start < low or batch.size + high - low >= batch_bytes):
                batch.take(text[low:high])
                lines.pack_through(high)
                low = -1
                if batch.size >= batch_bytes:
                    yield batch.written()
            if low < 0:
                low = high = start
            batch.rows.append((rowid, title, batch.size + start - low, end - start))
            high = max(high, end)
            rowid += 1
        if low >= 0:
            batch.take(text[low:high])
            lines.pack_through(high)
        if batch.size >= batch_bytes:
            yield batch.written()
    if batch.rows:
        yield batch.written()


class _Batch:
    """Rows and the pieces of text they point into; a row's start counts from the first
    piece, as the pieces are joined."""

    __slots__ = ("rows", "pieces", "size")

    def __init__(self) -> None:
        self.rows: list[tuple[int, str, int, int]] = []
        self.pieces: list[bytes | bytearray] = []
        self.size = 0

    def take(self, piece: bytes | bytearray) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def written(self) -> RowBatch:
        """The batch as statement parameters; this builder starts empty again."""
        try:
            rows = orjson.dumps(self.rows)
        except orjson.JSONEncodeError:  # a title holding a lone surrogate (from a JSON key)
            rows = orjson.dumps(
                [(rowid, sanitize(title), *rest) for rowid, title, *rest in self.rows]
            )
        pieces = self.pieces  # copies already: one is not copied again
        batch = RowBatch(pieces[0] if len(pieces) == 1 else b"".join(pieces), rows)
        self.rows, self.pieces, self.size = [], [], 0
        return batch


def _byte_ranges(lines: Lines, chunks: ChunkColumns) -> Iterator[tuple[int, int]]:
    """Where each chunk's body starts and ends in the text: what `Lines.span` returns."""
    starts, count = lines.starts, len(lines)
    part_bounds: list[int] = []
    parted_line = 0
    for first, end, part in zip(chunks.start_lines, chunks.end_lines, chunks.parts, strict=True):
        if not part:
            last = end if end < count else count
            yield (0, 0) if last < first else (starts[first - 1], starts[last] - 1)
            continue
        if first > count:
            yield 0, 0
            continue
        if first != parted_line:  # a long line's parts: bounds found once per line
            parted_line, part_bounds = first, _part_bounds(lines, first - 1)
        last_part = len(part_bounds) - 1
        yield part_bounds[min(part - 1, last_part)], part_bounds[min(part, last_part)]


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
