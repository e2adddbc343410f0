"""Pack a run of a document's lines into chunks: paragraphs packed together, big ones cut.

The work is per paragraph, never per line: paragraphs are found by one regex scan of the
run's UTF-8 text for blank lines, their sizes are byte offsets, and line numbers come from
counting newlines at C speed. A run that fits one chunk is not scanned at all.
"""

import re
from collections.abc import Iterator, Sequence

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.sizing import MAX_CHUNK_CHARS, TARGET_CHUNK_CHARS, Block, split_windows

_PARAGRAPH_END = re.compile(rb"\n(?:[^\S\n]*\n)+")
"""The newline that ends a paragraph and the blank (or whitespace-only) lines after it."""
_NONBLANK = re.compile(rb"\S")
_TAIL_CHARS = 256
"""Trailing whitespace is looked for this many bytes at a time, from the end."""


def pack_lines(
    lines: Lines,
    first: int,
    last: int,
    title: str,
    *,
    atoms: Sequence[Block] = (),
    overlap: int = 0,
) -> Iterator[Chunk]:
    """Chunk 0-based lines first..last, each chunk titled `title` (made as they are taken).

    Paragraphs (runs of non-blank lines) are packed into chunks of about
    TARGET_CHUNK_CHARS; one longer than MAX_CHUNK_CHARS is cut into windows sharing
    `overlap` lines. Each of `atoms` (in order, inside first..last; e.g. code fences) is
    one paragraph whatever blank lines it holds. A paragraph's size counts its lines with
    their newlines, not the blank lines around it.
    """
    if last < first:
        return
    start, end = lines.starts[first], lines.starts[last + 1]
    if end - start <= TARGET_CHUNK_CHARS:
        yield from _whole(lines, first, last, title, atoms)
        return
    chunk_start = chunk_end = -1  # bytes of the chunk being filled
    size = 0
    for block_start, block_end in _blocks(lines, start, end, atoms):
        chars = block_end - block_start
        if chunk_start >= 0 and (size + chars > TARGET_CHUNK_CHARS or chars > MAX_CHUNK_CHARS):
            yield _chunk(lines, chunk_start, chunk_end, title)
            chunk_start = -1
        if chars > MAX_CHUNK_CHARS:
            block_first, block_last = lines.index_at(block_start), lines.index_at(block_end - 1)
            yield from split_windows(
                lines.starts, lines.length, block_first, block_last, title, overlap
            )
            continue
        if chunk_start < 0:
            chunk_start, size = block_start, 0
        chunk_end = block_end
        size += chars
    if chunk_start >= 0:
        yield _chunk(lines, chunk_start, chunk_end, title)


def _chunk(lines: Lines, start: int, end: int, title: str) -> Chunk:
    """The chunk of the whole lines at bytes start..end (exclusive)."""
    return Chunk(title, lines.index_at(start) + 1, lines.index_at(end - 1) + 1)


def _whole(lines: Lines, first: int, last: int, title: str, atoms: Sequence[Block]) -> list[Chunk]:
    """The one chunk of lines first..last, which fit it: first paragraph or atom to last.

    None when every line is blank (an atom's lines never are). Blank lines are counted in
    the whitespace around the content, not in the whole run.
    """
    text, start, end = lines.text, lines.starts[first], lines.starts[last + 1]
    content = _content(text, start, end)
    if content is None:
        return []
    first_char, last_char = content
    start_line = first + text.count(b"\n", start, first_char)
    newline_at_end = end <= len(text)  # the last line's newline is real
    end_line = last - text.count(b"\n", last_char, end) + newline_at_end
    if atoms:  # an atom's opening line is not blank, but its last lines may be
        start_line, end_line = min(start_line, atoms[0][0]), max(end_line, atoms[-1][1])
    return [Chunk(title, start_line + 1, end_line + 1)]


def _blocks(lines: Lines, start: int, end: int, atoms: Sequence[Block]) -> Iterator[Block]:
    """Byte spans of the paragraphs and atoms of the whole lines at start..end."""
    for atom_first, atom_last in atoms:
        yield from _paragraphs(lines.text, start, lines.starts[atom_first])
        start = lines.starts[atom_last + 1]
        yield lines.starts[atom_first], start
    yield from _paragraphs(lines.text, start, end)


def _paragraphs(text: bytes, start: int, end: int) -> Iterator[Block]:
    """Byte spans of the runs of non-blank lines among the whole lines at start..end.

    A span ends one past its last newline (real, or implied at the end of the text).
    """
    content = _content(text, start, end)
    if content is None:
        return
    first_char, last_char = content
    start = max(start, text.rfind(b"\n", start, first_char) + 1)
    line_end = text.find(b"\n", last_char, end)
    end = end if line_end < 0 else line_end + 1
    for blank in _PARAGRAPH_END.finditer(text, start, end):
        yield start, blank.start() + 1
        start = blank.end()
    yield start, end


def _content(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The first and last non-whitespace bytes at start..end; None if there are none."""
    found = _NONBLANK.search(text, start, end)
    if found is None:
        return None
    tail = min(end, len(text))
    while True:  # trailing whitespace skipped a slice at a time
        head = max(found.start(), tail - _TAIL_CHARS)
        kept = len(text[head:tail].rstrip())
        if kept:
            return found.start(), head + kept - 1
        tail = head
