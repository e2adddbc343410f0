"""A document accepted by a `SessionStore`: what the store keeps of it, and its reservation."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from indexing.engine.chunker import DocumentFormat, Lines
from indexing.engine.stats import DocumentStats
from indexing.engine.store_feed import ChunkFeed
from indexing.engine.store_schema import DocumentInfo


class Entry(NamedTuple):
    """A document about to be inserted: what the store keeps of it (not its outline)."""

    label: str
    format: DocumentFormat
    feed: ChunkFeed  # its lines, and its chunks: all there, or still being made
    with_trigrams: bool
    raw: Lines | None = None  # the text as sent, when `feed.lines` are pretty JSON

    def expected_bytes(self) -> int:
        """What the document counts against the store's bound (its raw text too)."""
        return self.feed.expected_bytes + (0 if self.raw is None else self.raw.utf8_size())

    def written_bytes(self) -> int:
        """`expected_bytes` once its lines are written."""
        return self.feed.lines.utf8_size() + (0 if self.raw is None else self.raw.utf8_size())


class Reservation:
    """A document accepted under its label, written to its store by `commit()` (`write`
    is how the store that made it writes it).

    `commit` may run in another thread: until it has, every read of the store waits for
    it, so a search or read never misses a label a client was already told about.
    """

    def __init__(
        self,
        entry: Entry,
        tool: str,
        run: int | None,
        write: Callable[[Reservation], DocumentStats],
    ) -> None:
        self.entry, self.tool, self.run = entry, tool, run
        self._write = write

    def commit(self) -> DocumentStats:
        """Write the document (evicting old ones if needed) as its feed hands the chunks
        over; raises what indexing raised (`DocumentAbandoned`: its maker gave it up)."""
        return self._write(self)


def document_stats(info: DocumentInfo, seconds: float) -> DocumentStats:
    return DocumentStats(info.label, info.line_count, info.chunk_count, info.byte_count, seconds)
