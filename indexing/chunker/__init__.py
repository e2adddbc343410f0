"""Format-aware chunking: every chunk keeps its line range and a title; plus an outline."""

from indexing.chunker.chunk_list import ChunkList
from indexing.chunker.code import chunk_code
from indexing.chunker.detect import SAMPLE_LINES, detect_line_format
from indexing.chunker.document import Chunk, DocumentFormat, OutlineEntry, ParsedDocument
from indexing.chunker.jsondoc import chunk_json
from indexing.chunker.lines import Lines
from indexing.chunker.markdown import chunk_markdown
from indexing.chunker.plaintext import chunk_text
from indexing.text import encode_document

__all__ = [
    "Chunk",
    "ChunkList",
    "DocumentFormat",
    "Lines",
    "OutlineEntry",
    "ParsedDocument",
    "chunk_document",
    "detect_format",
]


def chunk_document(text: str, format: DocumentFormat | None = None) -> ParsedDocument:
    """Split `text` into chunks and an outline; JSON is pretty-printed and served as such.

    `format` forces a format; a forced JSON that does not parse falls back to detection.
    """
    detected, lines, chunks, outline = _chunked(text, format)
    return ParsedDocument(detected, lines, ChunkList(chunks), outline)


def detect_format(text: str) -> DocumentFormat:
    """The format `chunk_document` finds in `text`: JSON, Markdown, code or plain text."""
    return chunk_document(text).format


def _chunked(
    text: str, format: DocumentFormat | None
) -> tuple[DocumentFormat, Lines, list[Chunk], list[OutlineEntry]]:
    if format in (None, DocumentFormat.JSON):
        try:
            json_document = chunk_json(text)
        except RecursionError:  # nesting deeper than the writer can follow
            json_document = None
        if json_document is not None:
            return DocumentFormat.JSON, *json_document
    # Chunkers scan the UTF-8 text and size chunks by line offsets: no list of every line.
    lines = Lines.of(encode_document(text))
    if format in (None, DocumentFormat.JSON):
        format = detect_line_format(lines.head(SAMPLE_LINES))
    if format is DocumentFormat.MARKDOWN:
        return format, lines, *chunk_markdown(lines)
    if format is DocumentFormat.CODE:
        return format, lines, *chunk_code(lines)
    return DocumentFormat.TEXT, lines, chunk_text(lines), []
