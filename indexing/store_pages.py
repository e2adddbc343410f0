"""How the store keeps a document's lines (pages of lines) and finds its chunks (id ranges)."""

from collections.abc import Iterator

from indexing.chunker import Lines
from indexing.store_schema import DocumentInfo

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
