"""Format-aware chunking: every chunk keeps its line range and a title; plus an outline."""

from indexing.chunker.code import chunk_code
from indexing.chunker.detect import detect_format, detect_line_format
from indexing.chunker.document import Chunk, DocumentFormat, OutlineEntry, ParsedDocument
from indexing.chunker.jsondoc import chunk_json
from indexing.chunker.lines import Lines
from indexing.chunker.markdown import chunk_markdown
from indexing.chunker.plaintext import chunk_text
from indexing.text import sanitize, split_lines

__all__ = [
    "Chunk",
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
    text = sanitize(text, keep_crlf=True)
    if format in (None, DocumentFormat.JSON):
        try:
            json_document = chunk_json(text)
        except RecursionError:  # nesting deeper than the writer can follow
            json_document = None
        if json_document is not None:
            return ParsedDocument(DocumentFormat.JSON, *json_document)
    # Chunkers walk a list of lines (fast); the document keeps the text and line offsets
    # instead (8 bytes a line rather than ~57), so the list is gone before the store grows.
    lines = split_lines(text)
    document_lines = Lines.over(text, lines)
    if document_lines.crlf:
        lines = [line.removesuffix("\r") for line in lines]
    detected = format if format not in (None, DocumentFormat.JSON) else detect_line_format(lines)
    outline: list[OutlineEntry] = []
    if detected is DocumentFormat.MARKDOWN:
        chunks, outline = chunk_markdown(lines)
    elif detected is DocumentFormat.CODE:
        chunks, outline = chunk_code(lines)
    else:
        detected, chunks = DocumentFormat.TEXT, chunk_text(lines)
    return ParsedDocument(detected, document_lines, chunks, outline)
