"""What chunking produces: chunks with line ranges, an outline, and the document's lines."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from indexing.chunker.lines import Lines
from indexing.text import LINE_PART_CHARS


class DocumentFormat(StrEnum):
    """The formats the chunker tells apart."""

    JSON = "json"
    MARKDOWN = "markdown"
    CODE = "code"
    TEXT = "text"


class Chunk(NamedTuple):
    """A searchable piece of a document covering lines `start_line`..`end_line` (1-based).

    `part` is set when the chunk is one 2,000-character part of a single long line, matching
    the `N-M` parts IndexRead serves. Its text is always those lines (`ParsedDocument.body`).
    """

    title: str
    start_line: int
    end_line: int
    part: int | None = None


class OutlineEntry(NamedTuple):
    """One Contents entry: where a piece of the document's own structure starts."""

    line: int
    title: str
    depth: int = 0


@dataclass(slots=True)
class ParsedDocument:
    """A document split into lines (as IndexRead serves them), chunks and an outline."""

    format: DocumentFormat
    lines: Lines
    chunks: list[Chunk]
    outline: list[OutlineEntry] = field(default_factory=list)

    def body(self, chunk: Chunk) -> str:
        """The text a chunk covers, as it is indexed and shown in search hits."""
        return self.lines.span(chunk.start_line, chunk.end_line, chunk.part)

    def bodies(self) -> Iterator[str]:
        """Every chunk's body in order (see `chunk_bodies`)."""
        return chunk_bodies(self.lines, self.chunks)


def chunk_bodies(lines: Lines, chunks: Iterable[Chunk]) -> Iterator[str]:
    """The body of each of `chunks` of `lines`, in order; a long line cut into parts is
    decoded once for all its parts."""
    number, line = 0, ""
    for chunk in chunks:
        if chunk.part is None:
            yield lines.span(chunk.start_line, chunk.end_line)
            continue
        if chunk.start_line != number:
            number, line = chunk.start_line, lines[chunk.start_line - 1]
        offset = (chunk.part - 1) * LINE_PART_CHARS
        yield line[offset : offset + LINE_PART_CHARS]
