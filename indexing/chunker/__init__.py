"""Format-aware chunking: every chunk keeps its line range and a title; plus an outline."""

from indexing.chunker.code import chunk_code
from indexing.chunker.detect import detect_format, detect_line_format
from indexing.chunker.document import Chunk, DocumentFormat, OutlineEntry, ParsedDocument
from indexing.chunker.jsondoc import chunk_json, parse_json_document
from indexing.chunker.markdown import chunk_markdown
from indexing.chunker.plaintext import chunk_text
from indexing.text import sanitize, split_lines

__all__ = [
    "Chunk",
    "DocumentFormat",
    "OutlineEntry",
    "ParsedDocument",
    "chunk_document",
    "detect_format",
]


def chunk_document(text: str, format: DocumentFormat | None = None) -> ParsedDocument:
    """Split `text` into chunks and an outline; JSON is pretty-printed and served as such.

    `format` forces a format; a forced JSON that does not parse falls back to detection.
    """
    text = sanitize(text)
    if format in (None, DocumentFormat.JSON):
        value = parse_json_document(text)
        if value is not None:
            try:
                lines, chunks, outline = chunk_json(value)
            except RecursionError:  # nesting deeper than the writer can follow
                pass
            else:
                return ParsedDocument(DocumentFormat.JSON, lines, chunks, outline)
    lines = split_lines(text)
    detected = format if format not in (None, DocumentFormat.JSON) else detect_line_format(lines)
    if detected is DocumentFormat.MARKDOWN:
        chunks, outline = chunk_markdown(lines)
        return ParsedDocument(detected, lines, chunks, outline)
    if detected is DocumentFormat.CODE:
        chunks, outline = chunk_code(lines)
        return ParsedDocument(detected, lines, chunks, outline)
    return ParsedDocument(DocumentFormat.TEXT, lines, chunk_text(lines))
