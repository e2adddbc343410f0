"""Logs and plain text: paragraphs when there are any, else overlapping windows of lines."""

from dataclasses import replace

from indexing.chunker.document import Chunk
from indexing.chunker.sizing import pack_blocks, paragraphs
from indexing.text import one_line

WINDOW_OVERLAP_LINES = 2


def chunk_text(lines: list[str]) -> list[Chunk]:
    """Chunk text by paragraph; runs too long for one chunk become overlapping windows.

    Each chunk is titled by its first line, which for logs is usually the most telling.
    """
    blocks = paragraphs(lines, 0, len(lines) - 1)
    chunks = pack_blocks(lines, blocks, "", overlap=WINDOW_OVERLAP_LINES)
    return [
        replace(chunk, title=one_line(chunk.body[:400].split("\n", 1)[0], 80)) for chunk in chunks
    ]
