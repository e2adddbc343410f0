"""Chunk sizing shared by every format: pack small blocks together, split oversized ones."""

from collections.abc import Iterable

from indexing.chunker.document import Chunk
from indexing.text import part_count

TARGET_CHUNK_CHARS = 2000
MAX_CHUNK_CHARS = 3000

Block = tuple[int, int]
"""An inclusive range of 0-based line indexes that should stay together."""


def block_chars(lines: list[str], start: int, end: int) -> int:
    """Return the size of lines[start..end] joined with newlines (plus a final newline)."""
    return sum(map(len, lines[start : end + 1])) + end - start + 1


def make_chunk(start: int, end: int, title: str) -> Chunk:
    """The chunk covering 0-based lines start..end."""
    return Chunk(title, start + 1, end + 1)


def pack_blocks(
    lines: list[str], blocks: Iterable[Block], title: str, *, overlap: int = 0
) -> list[Chunk]:
    """Merge consecutive blocks into chunks of about TARGET_CHUNK_CHARS; split oversized ones."""
    chunks: list[Chunk] = []
    first = last = -1
    size = 0
    for start, end in blocks:
        chars = block_chars(lines, start, end)
        if first >= 0 and (size + chars > TARGET_CHUNK_CHARS or chars > MAX_CHUNK_CHARS):
            chunks.append(make_chunk(first, last, title))
            first = -1
        if chars > MAX_CHUNK_CHARS:
            chunks.extend(split_block(lines, start, end, title, overlap=overlap))
            continue
        if first < 0:
            first, size = start, 0
        last = end
        size += chars
    if first >= 0:
        chunks.append(make_chunk(first, last, title))
    return chunks


def split_block(
    lines: list[str], start: int, end: int, title: str, *, overlap: int = 0
) -> list[Chunk]:
    """Cut lines start..end into windows of about TARGET_CHUNK_CHARS, long lines into parts.

    Consecutive windows share up to `overlap` trailing lines, so a match across a window
    boundary is still found in one chunk.
    """
    chunks: list[Chunk] = []
    index = start
    while index <= end:
        if len(lines[index]) > MAX_CHUNK_CHARS:
            chunks.extend(split_line(len(lines[index]), index, title))
            index += 1
            continue
        stop, size = index, len(lines[index]) + 1
        while stop < end and len(lines[stop + 1]) <= MAX_CHUNK_CHARS:
            size += len(lines[stop + 1]) + 1
            if size > TARGET_CHUNK_CHARS:
                break
            stop += 1
        chunks.append(make_chunk(index, stop, title))
        following = stop + 1
        if overlap and following <= end and len(lines[following]) <= MAX_CHUNK_CHARS:
            following = max(index + 1, following - overlap)
        index = following
    return chunks


def split_line(length: int, index: int, title: str) -> list[Chunk]:
    """Cut one long line into chunks that are exactly the parts IndexRead serves."""
    return [Chunk(title, index + 1, index + 1, part) for part in range(1, part_count(length) + 1)]


def paragraphs(lines: list[str], start: int, end: int) -> list[Block]:
    """Split lines start..end into runs of non-blank lines."""
    blocks: list[Block] = []
    first = -1
    for index in range(start, end + 1):
        line = lines[index]
        if line and not line.isspace():
            if first < 0:
                first = index
        elif first >= 0:
            blocks.append((first, index - 1))
            first = -1
    if first >= 0:
        blocks.append((first, end))
    return blocks
