"""What chunking produces: chunks with line ranges, an outline, and the document's lines."""

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from indexing.engine.chunker.chunk_list import Chunk, ChunkList
from indexing.engine.chunker.lines import Lines
from indexing.engine.text import one_line


class DocumentFormat(StrEnum):
    """The formats the chunker tells apart."""

    JSON = "json"
    MARKDOWN = "markdown"
    CODE = "code"
    TEXT = "text"


CONTENTS_BYTES = 2048
"""A placeholder's Contents show at most this many bytes of the outline, a level at a time
(`indexing.engine.placeholder.render_contents`)."""


class OutlineEntry(NamedTuple):
    """One Contents entry: where a piece of the document's own structure starts."""

    line: int
    title: str
    depth: int = 0

    def contents_item(self, top: int) -> str:
        """The entry as a Contents list item, indented two spaces per level below `top`."""
        return f"{'  ' * (self.depth - top)}- [L{self.line}] {one_line(self.title, 100)}"


@dataclass(slots=True)
class ParsedDocument:
    """A document split into lines (as IndexRead serves them), chunks and an outline; `raw`
    is its text as sent when the lines are not it (minified JSON served pretty-printed)."""

    format: DocumentFormat
    lines: Lines
    chunks: ChunkList
    outline: list[OutlineEntry] = field(default_factory=list)
    raw: Lines | None = None

    def body(self, chunk: Chunk) -> str:
        """The text a chunk covers, as it is indexed and shown in search hits."""
        return self.lines.span(chunk.start_line, chunk.end_line, chunk.part)
