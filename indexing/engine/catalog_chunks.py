"""Catalog documents chunked by the shape the gateway writes them in, not by parsing Markdown.

`indexing.api.catalog_documents` writes every document as a `# ` heading line, its text, and
at most one `## ` section (Parameters, Arguments). When nothing in that text looks like
Markdown structure and each section is small, the Markdown chunker would make exactly one
chunk per section, from its heading to its last non-blank line: that is built here
directly, several times faster. Any other document (a description with headings, fences
or rules, a long section, `\\r` line ends) goes to the Markdown chunker itself.
"""

import re

from indexing.engine.chunker import (
    Chunk,
    ChunkList,
    DocumentFormat,
    Lines,
    OutlineEntry,
    ParsedDocument,
    chunk_document,
)
from indexing.engine.chunker.sizing import TARGET_CHUNK_CHARS
from indexing.engine.text import one_line, split_lines, without_lone_surrogates

_STRUCTURE = re.compile(r"\n {0,3}(?:[#`~]|[=-]+[ \t]*(?=\n|\Z))")
"""A line after the first that may open Markdown structure (heading, fence, setext
underline): a superset of what the Markdown chunker looks at, so a line it does not match
is plain text to it too. (Led by a newline, not `^`: the regex engine skips to each one.)"""
_HEADINGS = ("# ", "## ")
"""The heading lines a catalog document has: the item's own, then at most one section."""


def chunk_catalog_document(text: str) -> ParsedDocument:
    """Chunks and outline of a catalog document, as `chunk_document(text, MARKDOWN)` makes them."""
    text = without_lone_surrogates(text)
    if "\r" in text or not text.startswith(_HEADINGS[0]):
        return chunk_document(text, DocumentFormat.MARKDOWN)
    sections = [0, *(match.start() + 1 for match in _STRUCTURE.finditer(text))]
    if len(sections) > len(_HEADINGS):
        return chunk_document(text, DocumentFormat.MARKDOWN)
    lines = split_lines(text)
    document_lines = Lines.of(text.encode())
    heading_lines = [text.count("\n", 0, start) for start in sections]
    ends = [*heading_lines[1:], len(lines)]
    chunks, outline, trail = [], [], []
    for depth, (first, stop) in enumerate(zip(heading_lines, ends, strict=True)):
        name = _heading_name(lines[first], _HEADINGS[depth])
        if name is None or document_lines.size(first, stop - 1) > TARGET_CHUNK_CHARS:
            return chunk_document(text, DocumentFormat.MARKDOWN)
        trail.append(name)
        last = stop - 1
        while not lines[last] or lines[last].isspace():  # the heading line is not blank
            last -= 1
        chunks.append(Chunk(" > ".join(trail), first + 1, last + 1))
        outline.append(OutlineEntry(first + 1, name, depth))
    return ParsedDocument(DocumentFormat.MARKDOWN, document_lines, ChunkList(chunks), outline)


def _heading_name(line: str, marker: str) -> str | None:
    """The heading's text when the line is `marker` plus text the Markdown chunker keeps as is.

    That text is already one flat line and has no closing `#` sequence to drop.
    """
    if not line.startswith(marker):
        return None
    name = line[len(marker) :]
    return name if name and one_line(name) == name and not name.endswith("#") else None
