"""SessionStore: one in-memory SQLite FTS5 index per MCP session, bounded in size."""

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, replace

from indexing.chunker import DocumentFormat, ParsedDocument, chunk_document
from indexing.errors import evicted_label_error, unknown_label_error
from indexing.fts import TRIGRAM_MIN_CHARS, escape_fts
from indexing.stats import CompressionStats, DocumentStats
from indexing.text import sanitize, utf8_size

DEFAULT_MAX_BYTES = 256 * 2**20
DEFAULT_TRIGRAM_MAX_BYTES = 8 * 2**20
TITLE_WEIGHT = 5.0
_FUSION_K = 60  # reciprocal rank fusion constant, as in Cormack et al.

_SCHEMA = """
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE,
    tool TEXT NOT NULL,
    run INTEGER,
    format TEXT NOT NULL,
    line_count INTEGER NOT NULL,
    byte_count INTEGER NOT NULL
);
CREATE TABLE lines (
    doc_id INTEGER NOT NULL,
    number INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (doc_id, number)
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    part INTEGER,
    body TEXT NOT NULL
);
CREATE INDEX chunks_by_document ON chunks (doc_id);
CREATE VIRTUAL TABLE chunk_words USING fts5(
    title, body, content='chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE VIRTUAL TABLE chunk_trigrams USING fts5(
    title, body, content='chunks', content_rowid='id', tokenize='trigram'
);
"""
_FTS_TABLES = ("chunk_words", "chunk_trigrams")


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
    connection.executescript(_SCHEMA)
    return connection


class SessionStore:
    """The per-session index. Thread-safe: every method holds one lock.

    Calls are synchronous; indexing a large document takes seconds, so asyncio callers
    should run `add`/`add_document` in a thread (`asyncio.to_thread`).
    `max_bytes` bounds the UTF-8 size of the indexed text; the oldest documents are
    evicted whole to make room. Only documents up to `trigram_max_bytes` also get the
    (about 7x larger) trigram index used for substring search.
    """

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        trigram_max_bytes: int = DEFAULT_TRIGRAM_MAX_BYTES,
    ) -> None:
        self.max_bytes = max_bytes
        self.trigram_max_bytes = trigram_max_bytes
        self.stats: list[CompressionStats] = []
        self._connection = connect()
        self._lock = threading.RLock()
        self._documents: dict[str, DocumentInfo] = {}
        self._evicted: dict[str, DocumentInfo] = {}
        self._total_bytes = 0

    @property
    def total_bytes(self) -> int:
        """UTF-8 size of the text currently indexed."""
        return self._total_bytes

    def add(
        self,
        label: str,
        text: str,
        *,
        tool: str,
        run: int | None = None,
        format: DocumentFormat | None = None,
    ) -> DocumentStats:
        """Chunk and index `text` under `label`; seconds include chunking.

        Raises:
            ValueError: the label is already in use (labels are never reused).
            DocumentTooLargeError: the text alone exceeds `max_bytes`.
        """
        started = time.perf_counter()
        stats = self.add_document(label, chunk_document(text, format), tool=tool, run=run)
        return replace(stats, seconds=time.perf_counter() - started)

    def add_document(
        self, label: str, document: ParsedDocument, *, tool: str, run: int | None = None
    ) -> DocumentStats:
        """Index an already chunked document under `label`, evicting old documents if needed.

        Raises:
            ValueError: the label is already in use (labels are never reused).
            DocumentTooLargeError: the document alone exceeds `max_bytes`.
        """
        started = time.perf_counter()
        byte_count = utf8_size("\n".join(document.lines)) + (1 if document.lines else 0)
        with self._lock:
            if sanitize(label) != label:
                raise ValueError(f"label {label!r} must be UTF-8 text without NUL or line breaks")
            if label in self._documents or label in self._evicted:
                raise ValueError(f'label "{label}" is already in use')
            if byte_count > self.max_bytes:
                raise DocumentTooLargeError(
                    f"{byte_count:,} bytes exceed the index bound of {self.max_bytes:,} bytes"
                )
            while self._documents and self._total_bytes + byte_count > self.max_bytes:
                self._evict(next(iter(self._documents.values())))
            with_trigrams = byte_count <= self.trigram_max_bytes
            info = self._insert(label, document, tool, run, byte_count, with_trigrams)
            self._documents[label] = info
            self._total_bytes += byte_count
        seconds = time.perf_counter() - started
        return DocumentStats(label, len(document.lines), len(document.chunks), byte_count, seconds)

    def _insert(
        self,
        label: str,
        document: ParsedDocument,
        tool: str,
        run: int | None,
        byte_count: int,
        with_trigrams: bool,
    ) -> DocumentInfo:
        """Write the document, its lines, chunks and FTS rows in one transaction."""
        db = self._connection
        db.execute("BEGIN")
        try:
            doc_id = db.execute(
                "INSERT INTO documents (label, tool, run, format, line_count, byte_count)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (label, tool, run, str(document.format), len(document.lines), byte_count),
            ).lastrowid
            assert doc_id is not None
            db.executemany(
                "INSERT INTO lines (doc_id, number, text) VALUES (?, ?, ?)",
                ((doc_id, number, line) for number, line in enumerate(document.lines, start=1)),
            )
            db.executemany(
                "INSERT INTO chunks (doc_id, title, start_line, end_line, part, body)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (doc_id, c.title, c.start_line, c.end_line, c.part, c.body)
                    for c in document.chunks
                ),
            )
            for table in _FTS_TABLES if with_trigrams else _FTS_TABLES[:1]:
                db.execute(
                    f"INSERT INTO {table} (rowid, title, body)"
                    " SELECT id, title, body FROM chunks WHERE doc_id = ?",
                    (doc_id,),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return DocumentInfo(
            doc_id,
            label,
            tool,
            run,
            document.format,
            len(document.lines),
            byte_count,
            with_trigrams,
        )

    def _evict(self, info: DocumentInfo) -> None:
        """Drop a whole document and remember its label as evicted."""
        db = self._connection
        db.execute("BEGIN")
        try:
            for table in _FTS_TABLES if info.has_trigrams else _FTS_TABLES[:1]:
                db.execute(
                    f"INSERT INTO {table} ({table}, rowid, title, body)"
                    " SELECT 'delete', id, title, body FROM chunks WHERE doc_id = ?",
                    (info.id,),
                )
            for statement in (
                "DELETE FROM chunks WHERE doc_id = ?",
                "DELETE FROM lines WHERE doc_id = ?",
                "DELETE FROM documents WHERE id = ?",
            ):
                db.execute(statement, (info.id,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        del self._documents[info.label]
        self._evicted[info.label] = info
        self._total_bytes -= info.byte_count

    def labels(self, prefix: str | None = None) -> list[str]:
        """Live labels, oldest first, optionally only those starting with `prefix`."""
        with self._lock:
            return [label for label in self._documents if label.startswith(prefix or "")]

    def evicted_labels(self, prefix: str | None = None) -> list[str]:
        """Labels whose documents were evicted, oldest first."""
        with self._lock:
            return [label for label in self._evicted if label.startswith(prefix or "")]

    def document(self, label: str) -> DocumentInfo:
        """Return a live document's metadata.

        Raises:
            LabelEvictedError: the document was evicted.
            IndexToolError: no document ever had this label.
        """
        with self._lock:
            if label in self._documents:
                return self._documents[label]
            if label in self._evicted:
                raise evicted_label_error(label, self.max_bytes)
            raise unknown_label_error(label, list(self._documents))

    def search(self, query: str, *, source: str | None = None, limit: int = 5) -> list[Hit]:
        """Return up to `limit` chunks best-first for any query text, in labels starting `source`.

        Word (porter) and substring (trigram) BM25 rankings are fused by reciprocal rank.
        """
        with self._lock:
            doc_ids = [
                info.id for label, info in self._documents.items() if label.startswith(source or "")
            ]
            if not doc_ids or limit < 1:
                return []
            candidates = max(limit * 4, 40)
            rankings = [
                self._ranked(table, expression, doc_ids, candidates)
                for table, expression in (
                    ("chunk_words", escape_fts(query)),
                    ("chunk_trigrams", escape_fts(query, min_chars=TRIGRAM_MIN_CHARS)),
                )
                if expression is not None
            ]
            scores: dict[int, float] = {}
            for ranking in rankings:
                for rank, chunk_id in enumerate(ranking, start=1):
                    scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (_FUSION_K + rank)
            best = sorted(scores, key=lambda chunk_id: -scores[chunk_id])[:limit]
            return self._hits(best)

    def _ranked(self, table: str, expression: str, doc_ids: list[int], limit: int) -> list[int]:
        """Chunk ids matching `expression` in one FTS table, best BM25 first."""
        rows = self._connection.execute(
            f"SELECT chunks.id FROM {table} JOIN chunks ON chunks.id = {table}.rowid"
            f" WHERE {table} MATCH ?"
            " AND chunks.doc_id IN (SELECT value FROM json_each(?))"
            f" ORDER BY bm25({table}, ?, 1.0) LIMIT ?",
            (expression, json.dumps(doc_ids), TITLE_WEIGHT, limit),
        )
        return [chunk_id for (chunk_id,) in rows]

    def _hits(self, chunk_ids: list[int]) -> list[Hit]:
        """Load chunks by id, keeping the given order."""
        rows = self._connection.execute(
            "SELECT chunks.id, documents.label, title, start_line, end_line, part, body"
            " FROM chunks JOIN documents ON documents.id = chunks.doc_id"
            " WHERE chunks.id IN (SELECT value FROM json_each(?))",
            (json.dumps(chunk_ids),),
        )
        by_id = {row[0]: Hit(*row) for row in rows}
        return [by_id[chunk_id] for chunk_id in chunk_ids]

    def read_lines(
        self, label: str, first: int, last: int, *, skip_chars: int = 0, max_chars: int
    ) -> list[LineSlice]:
        """Return lines first..last, the first from character `skip_chars`, up to ~`max_chars`.

        Each line is cut to `max_chars`; reading stops once that many characters were returned.

        Raises:
            LabelEvictedError: the document was evicted.
            IndexToolError: no document ever had this label.
        """
        with self._lock:
            info = self.document(label)
            rows = self._connection.execute(
                "SELECT number, length(text),"
                " substr(text, CASE WHEN number = :first THEN :skip + 1 ELSE 1 END, :span)"
                " FROM lines WHERE doc_id = :doc AND number BETWEEN :first AND :last"
                " ORDER BY number",
                {
                    "first": first,
                    "last": last,
                    "skip": skip_chars,
                    "span": max_chars,
                    "doc": info.id,
                },
            )
            slices: list[LineSlice] = []
            total = 0
            for number, length, text in rows:
                first_char = skip_chars if number == first else 0
                slices.append(LineSlice(number, length, first_char, text))
                total += len(text)
                if total >= max_chars:
                    break
            return slices

    def close(self) -> None:
        """Free the database; the store must not be used afterwards."""
        with self._lock:
            self._connection.close()
            self._documents.clear()
