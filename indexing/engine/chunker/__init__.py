"""Format-aware chunking: every chunk keeps its line range and a title; plus an outline."""

from collections.abc import Iterator
from typing import NamedTuple

from indexing.engine.chunker.chunk_list import ChunkColumns, ChunkList
from indexing.engine.chunker.code import chunk_code
from indexing.engine.chunker.detect import detect_line_format
from indexing.engine.chunker.document import (
    CONTENTS_BYTES,
    Chunk,
    DocumentFormat,
    OutlineEntry,
    ParsedDocument,
)
from indexing.engine.chunker.json_members import NotStreamable
from indexing.engine.chunker.jsondoc import chunk_json
from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.markdown import chunk_markdown
from indexing.engine.chunker.plaintext import chunk_text
from indexing.engine.text import encode_document

__all__ = [
    "CONTENTS_BYTES",
    "Chunk",
    "ChunkColumns",
    "ChunkList",
    "DocumentFormat",
    "Lines",
    "NotStreamable",
    "OutlineEntry",
    "ParsedDocument",
    "Chunking",
    "chunk_document",
    "start_chunking",
]


class Chunking(NamedTuple):
    """A document being chunked: its format and lines now, its chunks as they are taken.

    `outline` is complete once `chunks` is exhausted, and so are `lines` when they are
    still being written (`Lines.complete`: a large JSON document's). Taking chunks while
    another thread indexes those already taken overlaps the two (see
    `indexing.engine.compressor`). `source_bytes` is the size of the text as given
    (`indexing.engine.text.utf8_size`), not of the lines served; `raw` is that text (kept
    packed) when the lines served are not it (minified JSON served pretty-printed).
    """

    format: DocumentFormat
    lines: Lines
    chunks: Iterator[Chunk]
    outline: list[OutlineEntry]
    source_bytes: int
    raw: Lines | None = None


def start_chunking(
    text: str, format: DocumentFormat | None = None, *, whole_json: bool = False
) -> Chunking:
    """Start chunking `text`, served as it is (minified JSON pretty-printed).

    `format` forces a format; a forced JSON that does not parse falls back to detection.
    A large JSON document is read member by member as its chunks are taken: if it turns
    out not to be readable that way (malformed past its start, or holding what orjson
    would not write exactly), taking its chunks raises `NotStreamable`, possibly after
    some were taken, and it must be chunked again with `whole_json=True`.
    """
    # Chunkers scan the UTF-8 text and size chunks by line offsets: no list of every line.
    encoded = encode_document(text)
    lines = Lines.of(encoded.data)
    if format in (None, DocumentFormat.JSON):
        try:
            json_document = chunk_json(text, lines, whole=whole_json)
        except RecursionError:  # nesting deeper than the writer can follow
            json_document = None
        if json_document is not None:
            served, chunks, outline, raw = json_document
            return Chunking(DocumentFormat.JSON, served, chunks, outline, len(encoded.data), raw)
    if format in (None, DocumentFormat.JSON):
        format = detect_line_format(lines)
    if format is DocumentFormat.MARKDOWN:
        chunks, outline = chunk_markdown(lines)
    elif format is DocumentFormat.CODE:
        chunks, outline = chunk_code(lines)
    else:
        format, chunks, outline = DocumentFormat.TEXT, chunk_text(lines), []
    return Chunking(format, lines, chunks, outline, encoded.source_bytes)


def chunk_document(text: str, format: DocumentFormat | None = None) -> ParsedDocument:
    """Split `text` into chunks and an outline (`start_chunking`, every chunk taken)."""
    try:
        chunking = start_chunking(text, format)
        chunks = ChunkList(chunking.chunks)
    except NotStreamable:
        chunking = start_chunking(text, format, whole_json=True)
        chunks = ChunkList(chunking.chunks)
    return ParsedDocument(chunking.format, chunking.lines, chunks, chunking.outline, chunking.raw)
