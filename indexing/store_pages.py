"""How the store keeps a document's lines: pages of lines, read back as slices and chunks."""

import sqlite3
from collections.abc import Iterator

from indexing.chunker import Lines
from indexing.store_schema import DocumentInfo, LineSlice
from indexing.text import LINE_PART_CHARS

PAGE_LINES = 64
"""Lines are stored in pages of up to this many lines, joined with `\\n`."""
PAGE_CHARS = 1024
"""Pages are halved until they fit this many characters (newlines included); a longer line
is a page alone. Small rows fill SQLite's 4 KiB pages well."""


def pages(lines: Lines) -> Iterator[tuple[int, int, str]]:
    """Group lines into (first line number, line count, text) pages of up to PAGE_LINES lines.

    A page over PAGE_CHARS characters (newlines included) is halved until it fits or is one
    line, so a long line is a page alone and `read_lines` can cut it in SQL.
    """
    for block in range(0, len(lines), PAGE_LINES):
        pending = [(block, min(block + PAGE_LINES, len(lines)))]
        while pending:
            start, stop = pending.pop()
            if stop - start > 1 and lines.chars(start, stop - 1) > PAGE_CHARS:
                middle = (start + stop) // 2
                pending += [(middle, stop), (start, middle)]
                continue
            yield start + 1, stop - start, lines.joined(start, stop - 1)


def chunk_ranges(documents: list[DocumentInfo]) -> list[tuple[int, int]]:
    """The chunk id ranges of `documents`, adjacent ones merged."""
    ranges: list[tuple[int, int]] = []
    for info in sorted(documents, key=lambda info: info.first_chunk):
        if info.last_chunk < info.first_chunk:
            continue
        if ranges and ranges[-1][1] + 1 == info.first_chunk:
            ranges[-1] = (ranges[-1][0], info.last_chunk)
        else:
            ranges.append((info.first_chunk, info.last_chunk))
    return ranges


def line_slices(
    db: sqlite3.Connection,
    doc_id: int,
    first: int,
    last: int,
    skip_chars: int,
    max_chars: int | None,
) -> list[LineSlice]:
    """Lines first..last of a document; `max_chars=None` reads them whole."""
    span = -1 if max_chars is None else max_chars
    rows = db.execute(
        "SELECT first_line, line_count,"
        " CASE WHEN line_count = 1 THEN length(text) END,"
        " CASE WHEN line_count > 1 THEN text"
        " WHEN first_line = :first THEN substr(text, :skip + 1, :span)"
        " ELSE substr(text, 1, :span) END"
        " FROM lines WHERE doc_id = :doc"
        " AND first_line BETWEEN :first - :page + 1 AND :last"
        " ORDER BY first_line",
        {
            "first": first,
            "last": last,
            "skip": skip_chars,
            "span": span if span >= 0 else 2**62,
            "doc": doc_id,
            "page": PAGE_LINES,
        },
    )
    slices: list[LineSlice] = []
    total = 0
    for first_line, count, length, text in rows:
        if count == 1:
            if first_line < first:
                continue
            pieces = [(first_line, length, text)]
        else:
            pieces = [
                (number, len(line), line)
                for number, line in enumerate(text.split("\n"), start=first_line)
                if first <= number <= last
            ]
        for number, length, text in pieces:
            first_char = skip_chars if number == first else 0
            if count > 1:
                end = None if max_chars is None else first_char + max_chars
                text = text[first_char:end]
            slices.append(LineSlice(number, length, first_char, text))
            total += len(text)
            if max_chars is not None and total >= max_chars:
                return slices
    return slices


def chunk_text(db: sqlite3.Connection, doc_id: int, start: int, end: int, part: int | None) -> str:
    """Rebuild a chunk's body from the stored lines."""
    if part is not None:
        skip = (part - 1) * LINE_PART_CHARS
        slices = line_slices(db, doc_id, start, start, skip, LINE_PART_CHARS)
        return slices[0].text if slices else ""
    return "\n".join(piece.text for piece in line_slices(db, doc_id, start, end, 0, None))


def stored_lines(db: sqlite3.Connection, doc_id: int) -> Lines:
    """Every line of a stored document."""
    rows = db.execute("SELECT text FROM lines WHERE doc_id = ? ORDER BY first_line", (doc_id,))
    return Lines.of("\n".join(text for (text,) in rows))
