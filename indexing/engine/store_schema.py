"""The session store's SQLite schema, connection factory and the records it returns."""

import sqlite3
from dataclasses import dataclass

from indexing.engine.chunker import DocumentFormat

FTS_OPTIONS = (("automerge", 16), ("crisismerge", 256), ("hashsize", 256 * 1024))
"""FTS5 buffers up to `hashsize` bytes of pending terms (default 1 MiB, which made SQLite's
peak 3.8x a 1 MiB document instead of 2.7x); merging segments less eagerly (defaults 4 and
16) wins back the time the smaller buffer costs."""

SCHEMA = """
CREATE VIRTUAL TABLE chunk_words USING fts5(
    title, body, content='', tokenize='porter unicode61'
);
CREATE VIRTUAL TABLE chunk_trigrams USING fts5(
    title, body, content='', tokenize='trigram'
);
"""
# The FTS tables are contentless and hold only the index: the store keeps each document's
# text once, in Python (its UTF-8 `Lines`), with its chunks (`ChunkList`); a chunk's rowid
# is its id, and its text is its lines start..end joined with `\n`, or part `part` of one
# long line.
FTS_TABLES = ("chunk_words", "chunk_trigrams")


class DocumentTooLargeError(ValueError):
    """A single document is larger than the store's whole memory bound."""


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A live document's metadata."""

    id: int
    label: str
    tool: str
    run: int | None
    format: DocumentFormat
    line_count: int
    byte_count: int
    has_trigrams: bool
    first_chunk: int = 0
    last_chunk: int = -1

    @property
    def chunk_count(self) -> int:
        return self.last_chunk - self.first_chunk + 1

    @property
    def is_response(self) -> bool:
        """A tool response (it has a run); the catalog's documents have none."""
        return self.run is not None


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a chunk and where it sits."""

    chunk_id: int
    label: str
    title: str
    start_line: int
    end_line: int
    part: int | None
    body: str


@dataclass(frozen=True, slots=True)
class LineSlice:
    """Part of a stored line: `text` starts at character `first_char` of a `length`-char line."""

    number: int
    length: int
    first_char: int
    text: str


def connect() -> sqlite3.Connection:
    """Open a fresh in-memory database with the store schema; the one connection factory."""
    connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    connection.executescript(SCHEMA)
    for table in FTS_TABLES:
        for option, value in FTS_OPTIONS:
            connection.execute(
                f"INSERT INTO {table} ({table}, rank) VALUES (?, ?)", (option, value)
            )
    return connection
