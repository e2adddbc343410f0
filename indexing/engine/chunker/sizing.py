"""Chunk sizes shared by every format, and cutting runs of lines too long for one chunk."""

from bisect import bisect_right
from collections.abc import Callable, Sequence

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.text import part_count

TARGET_CHUNK_CHARS = 2000
MAX_CHUNK_CHARS = 3000
"""Chunk sizes count the UTF-8 bytes of a chunk's text (its characters, for ASCII text); a
single line is cut into parts when it is longer than MAX_CHUNK_CHARS characters, since
IndexRead serves long lines in parts of characters."""

Block = tuple[int, int]
"""An inclusive range of 0-based line indexes that should stay together."""


def make_chunk(start: int, end: int, title: str) -> Chunk:
    """The chunk covering 0-based lines start..end."""
    return Chunk(title, start + 1, end + 1)


def split_windows(
    starts: Sequence[int],
    length: Callable[[int], int],
    first: int,
    last: int,
    title: str,
    overlap: int = 0,
) -> list[Chunk]:
    """Cut lines first..last into windows of about TARGET_CHUNK_CHARS, long lines into parts.

    `starts[i]` is where line i starts (its size is `starts[i + 1] - starts[i]`, newline
    included) and `length(i)` its length as served. Consecutive windows share up to
    `overlap` trailing lines, so a match across a window boundary is still found in one
    chunk. The work is per window: a window's end is found by bisecting the line starts.
    """
    chunks: list[Chunk] = []
    index = first
    while index <= last:
        if length(index) > MAX_CHUNK_CHARS:
            chunks.extend(split_line(length(index), index, title))
            index += 1
            continue
        # The last line such that the window from `index` holds at most TARGET_CHUNK_CHARS
        # (a line longer than MAX_CHUNK_CHARS never fits), or `index` alone.
        fitting = bisect_right(starts, starts[index] + TARGET_CHUNK_CHARS, index + 1, last + 2)
        stop = max(index, fitting - 2)
        chunks.append(make_chunk(index, stop, title))
        following = stop + 1
        if overlap and following <= last and length(following) <= MAX_CHUNK_CHARS:
            following = max(index + 1, following - overlap)
        index = following
    return chunks


def split_line(length: int, index: int, title: str) -> list[Chunk]:
    """Cut one long line into chunks that are exactly the parts IndexRead serves."""
    return [Chunk(title, index + 1, index + 1, part) for part in range(1, part_count(length) + 1)]
