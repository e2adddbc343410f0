"""How the store keeps a document's lines: pages of lines, and chunk bodies rebuilt from them."""

from collections.abc import Iterator
from itertools import accumulate, filterfalse

from indexing.chunker import Chunk
from indexing.store_schema import DocumentInfo
from indexing.text import LINE_PART_CHARS, utf8_size

PAGE_LINES = 64
"""Lines are stored in pages of up to this many lines, joined with `\\n`."""
PAGE_CHARS = 1024
"""Pages are halved until they fit this many characters (newlines included); a longer line
is a page alone. Small rows fill SQLite's 4 KiB pages well."""


def byte_count(lines: list[str]) -> int:
    """UTF-8 size of the lines, each with its newline, without copying ASCII lines."""
    wide = list(filterfalse(str.isascii, lines))
    return sum(map(len, lines)) + len(lines) + sum(map(utf8_size, wide)) - sum(map(len, wide))


def pages(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """Group lines into (first line number, line count, text) pages of up to PAGE_LINES lines.

    A page over PAGE_CHARS characters (newlines included) is halved until it fits or is one
    line, so a long line is a page alone and `read_lines` can cut it in SQL.
    """
    ends = list(accumulate(map(len, lines), initial=0))  # ends[i]: characters before line i
    for block in range(0, len(lines), PAGE_LINES):
        pending = [(block, min(block + PAGE_LINES, len(lines)))]
        while pending:
            start, stop = pending.pop()
            if stop - start > 1 and ends[stop] - ends[start] + stop - start > PAGE_CHARS:
                middle = (start + stop) // 2
                pending += [(middle, stop), (start, middle)]
                continue
            yield start + 1, stop - start, "\n".join(lines[start:stop])


def is_derived(chunk: Chunk, lines: list[str]) -> bool:
    """True when the chunk's body can be rebuilt from `lines` (so it is not stored twice)."""
    return chunk.body == chunk_body(lines, chunk.start_line, chunk.end_line, chunk.part, None)


def chunk_body(lines: list[str], start: int, end: int, part: int | None, body: str | None) -> str:
    """A chunk's body: the stored one, else lines start..end (or one part of line start)."""
    if body is not None:
        return body
    if part is not None:
        offset = (part - 1) * LINE_PART_CHARS
        return lines[start - 1][offset : offset + LINE_PART_CHARS] if start <= len(lines) else ""
    return "\n".join(lines[start - 1 : end])


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
