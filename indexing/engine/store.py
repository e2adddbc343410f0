"""SessionStore: one in-memory SQLite FTS5 index per MCP session, bounded in size."""

import threading
import time
from bisect import bisect_right
from itertools import accumulate, groupby

from indexing.engine.chunker import (
    ChunkList,
    DocumentFormat,
    Lines,
    ParsedDocument,
)
from indexing.engine.errors import IndexToolError, evicted_label_error, unknown_label_error
from indexing.engine.fts import TRIGRAM_MIN_CHARS, fts_phrases
from indexing.engine.fusion import reciprocal_rank_fusion
from indexing.engine.stats import CompressionStats, DocumentStats
from indexing.engine.store_entry import Entry, Reservation, document_stats
from indexing.engine.store_feed import ChunkFeed, DocumentAbandoned
from indexing.engine.store_pages import chunk_ranges, line_slices
from indexing.engine.store_ranking import Ranking
from indexing.engine.store_schema import (
    FTS_TABLES,
    DocumentInfo,
    DocumentTooLargeError,
    Hit,
    LineSlice,
    connect,
)
from indexing.engine.store_writes import release_statements, transaction, write_rows
from indexing.engine.text import sanitize

DEFAULT_MAX_BYTES = 256 * 2**20
DEFAULT_TRIGRAM_MAX_BYTES = 512 * 2**10


class SessionStore:
    """The per-session index. Thread-safe: every method holds one lock.

    Calls are synchronous; indexing a large document takes seconds, so asyncio callers
    should run a reservation's `commit` (or `add_documents`) in a thread
    (`asyncio.to_thread`).
    `max_bytes` bounds the UTF-8 size of the indexed text; the oldest documents are
    evicted whole to make room, responses (documents with a run) before the others. Only
    documents up to `trigram_max_bytes` also get the trigram index used for substring
    search (3-4x the text, and most of the indexing time).
    A document whose lines are still being written counts at its expected size for both
    until it is written.
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
        self._ranking = Ranking(self._connection, self._fts_rows)
        self._lock = threading.RLock()
        self._settled = threading.Condition(self._lock)
        self._reserved: dict[str, Reservation] = {}
        self._failed: dict[str, str] = {}
        self._documents: dict[str, DocumentInfo] = {}
        self._lines: dict[str, Lines] = {}
        self._raw: dict[str, Lines] = {}
        self._chunks: dict[str, ChunkList] = {}
        self._evicted: dict[str, DocumentInfo] = {}
        self._total_bytes = 0
        self._next_doc_id = 1
        self._next_chunk_id = 1

    def copy(self) -> "SessionStore":
        """A new store holding the same documents; SQLite's backup API copies the pages.

        Much cheaper than indexing the same documents again (a catalog indexed once per
        client serves each of its sessions).
        """
        twin = SessionStore(max_bytes=self.max_bytes, trigram_max_bytes=self.trigram_max_bytes)
        with self._lock:
            self._wait_for_reserved()
            self._connection.backup(twin._connection)
            twin._documents = dict(self._documents)
            twin._lines = dict(self._lines)  # immutable: shared, not copied
            twin._raw = dict(self._raw)
            twin._chunks = dict(self._chunks)
            twin._evicted = dict(self._evicted)
            twin._total_bytes = self._total_bytes
            twin._next_doc_id = self._next_doc_id
            twin._next_chunk_id = self._next_chunk_id
            twin.stats = list(self.stats)
        return twin

    @property
    def total_bytes(self) -> int:
        """UTF-8 size of the text currently indexed."""
        return self._total_bytes

    def add_documents(
        self,
        documents: list[tuple[str, ParsedDocument]],
        *,
        tool: str,
        trigrams: bool = True,
    ) -> list[DocumentStats]:
        """Index documents already chunked (catalog documents have their own chunker) in one
        transaction: all of them, or none. Many small documents index several times faster
        together: one statement per table, and FTS5 writes its pending terms once.

        Raises:
            ValueError: a label is already in use, or given twice.
            DocumentTooLargeError: the documents together exceed `max_bytes`.
        """
        if not documents:
            return []
        started = time.perf_counter()
        labels = [label for label, _ in documents]
        if len(set(labels)) != len(labels):
            raise ValueError("a label is given twice")
        with self._lock:
            entries = [
                self._entry(
                    label, document.format, ChunkFeed(document.lines, document.chunks), trigrams
                )._replace(raw=document.raw)
                for label, document in documents
            ]
            infos = self._insert(entries, tool, None)
        seconds = (time.perf_counter() - started) / max(1, len(infos))
        return [document_stats(info, seconds) for info in infos]

    def reserve(
        self,
        label: str,
        format: DocumentFormat,
        feed: ChunkFeed,
        *,
        tool: str,
        run: int | None = None,
        trigrams: bool = True,
        raw: Lines | None = None,
    ) -> Reservation:
        """Accept a document for `label`; the reservation's `commit()` indexes it, evicting
        old documents if needed. Its chunks may still be coming: `commit` indexes them as
        the feed hands them over. `raw` is the text as sent, kept beside lines that are
        not (minified JSON pretty-printed) for `lines(label, raw=True)`.

        Raises:
            ValueError: the label is already in use (labels are never reused).
            DocumentTooLargeError: the document alone exceeds `max_bytes`.
        """
        with self._lock:
            entry = self._entry(label, format, feed, trigrams)._replace(raw=raw)
            self.check_fits(entry.expected_bytes())
            reservation = self._reserved[label] = Reservation(entry, tool, run, self._commit)
            return reservation

    def check_fits(self, byte_count: int) -> None:
        """Raise `DocumentTooLargeError` if `byte_count` bytes of text exceed the bound."""
        if byte_count > self.max_bytes:
            raise DocumentTooLargeError(
                f"{byte_count:,} bytes exceed the index bound of {self.max_bytes:,} bytes"
            )

    def exclusive(self) -> threading.RLock:
        """The store's lock: what a writer does while holding it, readers see all or none of."""
        return self._lock

    def _commit(self, reservation: Reservation) -> DocumentStats:
        started = time.perf_counter()
        label = reservation.entry.label
        with self._lock:
            try:
                (info,) = self._insert([reservation.entry], reservation.tool, reservation.run)
            except DocumentAbandoned:  # never delivered: the label stays unknown
                raise
            except Exception as error:
                self._failed[label] = str(error) or type(error).__name__
                raise
            finally:
                del self._reserved[label]
                self._settled.notify_all()
        return document_stats(info, time.perf_counter() - started)

    def _wait_for_reserved(self) -> None:
        """Hold the lock once every reserved document is written (or failed)."""
        while self._reserved:
            self._settled.wait()

    def _entry(self, label: str, format: DocumentFormat, feed: ChunkFeed, trigrams: bool) -> Entry:
        """A document ready to insert, once its label is known to be new.

        Raises:
            ValueError: the label is not clean text, or already in use.
        """
        if sanitize(label) != label:
            raise ValueError(f"label {label!r} must be UTF-8 text without NUL or line breaks")
        taken = (self._documents, self._evicted, self._reserved, self._failed)
        if any(label in labels for labels in taken):
            raise ValueError(f'label "{label}" is already in use')
        with_trigrams = trigrams and feed.expected_bytes <= self.trigram_max_bytes
        return Entry(label, format, feed, with_trigrams)

    def _insert(self, entries: list[Entry], tool: str, run: int | None) -> list[DocumentInfo]:
        """Make room, then write the documents' FTS rows in one transaction; keep their
        lines and chunks. Only the last document's chunks may still be coming, its lines
        still being written: room is made for its expected size, and once it is written,
        older documents are evicted if it turned out larger.

        Raises:
            DocumentTooLargeError: the documents together exceed `max_bytes`, expected or
                written (nothing of them is kept).
        """
        needed = sum(entry.expected_bytes() for entry in entries)
        self.check_fits(needed)
        self._make_room(needed)
        # Only the last document's chunks may still be coming: the others' ids are known.
        lengths = (len(entry.feed.chunks) for entry in entries[:-1])
        firsts = list(accumulate(lengths, initial=self._next_chunk_id))
        with transaction(self._connection):
            documents = list(zip(entries, firsts, strict=True))
            for with_trigrams, group in groupby(documents, key=lambda pair: pair[0].with_trigrams):
                write_rows(
                    self._connection, [(entry.feed, first) for entry, first in group], with_trigrams
                )
            self.check_fits(sum(entry.written_bytes() for entry in entries))  # written
        release_statements(
            self._connection, with_trigrams=any(entry.with_trigrams for entry in entries)
        )
        infos = [
            DocumentInfo(
                doc_id,
                entry.label,
                tool,
                run,
                entry.format,
                len(entry.feed.lines),
                entry.written_bytes(),  # written now
                entry.with_trigrams,
                first,
                first + len(entry.feed.chunks) - 1,
            )
            for doc_id, (entry, first) in enumerate(documents, start=self._next_doc_id)
        ]
        self._next_doc_id += len(infos)
        if infos:
            self._next_chunk_id = infos[-1].last_chunk + 1
        for info, entry in zip(infos, entries, strict=True):
            self._documents[info.label] = info
            self._lines[info.label] = entry.feed.lines
            if entry.raw is not None:
                self._raw[info.label] = entry.raw
            self._chunks[info.label] = entry.feed.chunks
            self._total_bytes += info.byte_count
        self._make_room(0, keep=len(infos))  # a document may have come out larger
        return infos

    def _make_room(self, needed: int, *, keep: int = 0) -> None:
        """Evict the oldest documents, but the `keep` newest, until `needed` more bytes fit:
        responses first, documents without a run (the catalog, which searches for deferred
        tools need) only once no response is left to evict."""
        while self._total_bytes + needed > self.max_bytes:
            evictable = list(self._documents.values())[: len(self._documents) - keep]
            if not evictable:
                return
            self._evict(next((info for info in evictable if info.is_response), evictable[0]))

    def _evict(self, info: DocumentInfo) -> None:
        """Drop a whole document and remember its label as evicted."""
        with transaction(self._connection):
            feed = ChunkFeed(self._lines[info.label], self._chunks[info.label])
            write_rows(self._connection, [(feed, info.first_chunk)], info.has_trigrams, delete=True)
        release_statements(self._connection, with_trigrams=info.has_trigrams, delete=True)
        del self._documents[info.label]
        del self._lines[info.label]
        self._raw.pop(info.label, None)
        del self._chunks[info.label]
        self._evicted[info.label] = info
        self._total_bytes -= info.byte_count

    def labels(self, prefix: str | None = None) -> list[str]:
        """Live labels, oldest first, optionally only those starting with `prefix`."""
        with self._lock:
            self._wait_for_reserved()
            return [label for label in self._documents if label.startswith(prefix or "")]

    def evicted_labels(self, prefix: str | None = None) -> list[str]:
        """Labels whose documents were evicted, oldest first."""
        with self._lock:
            self._wait_for_reserved()
            return [label for label in self._evicted if label.startswith(prefix or "")]

    def document(self, label: str) -> DocumentInfo:
        """Return a live document's metadata.

        Raises:
            LabelEvictedError: the document was evicted.
            IndexToolError: no document ever had this label, or indexing it failed.
        """
        with self._lock:
            self._wait_for_reserved()
            if label in self._documents:
                return self._documents[label]
            if label in self._evicted:
                raise evicted_label_error(label, self.max_bytes)
            if label in self._failed:
                raise IndexToolError(f'Label "{label}" could not be indexed: {self._failed[label]}')
            raise unknown_label_error(label, list(self._documents))

    def search(self, query: str, *, source: str | None = None, limit: int = 5) -> list[Hit]:
        """Return up to `limit` chunks best-first for any query text, in labels starting
        `source` (in that response only, when `source` is a response's label).

        Word (porter) and substring (trigram) BM25 rankings are fused by reciprocal rank.
        The trigram table is only asked when some piece is not a plain lowercase word.
        """
        with self._lock:
            self._wait_for_reserved()
            chosen = self._under(source or "")
            if not chosen or limit < 1:
                return []
            ranges = None if len(chosen) == len(self._documents) else chunk_ranges(chosen)
            if ranges == []:
                return []
            tables = [("chunk_words", fts_phrases(query))]
            if any(info.has_trigrams for info in chosen):
                phrases = fts_phrases(query, min_chars=TRIGRAM_MIN_CHARS, unless_plain=True)
                tables.append(("chunk_trigrams", phrases))
            asked = [(table, phrases) for table, phrases in tables if phrases]
            # A single ranking fuses to itself: its first `limit` chunks are the answer.
            candidates = max(limit * 4, 40) if len(asked) > 1 else limit
            rankings = [
                self._ranking.ranked(table, phrases, ranges, candidates) for table, phrases in asked
            ]
            return self._hits(reciprocal_rank_fusion(rankings)[:limit])

    def searched_labels(self, source: str | None) -> list[str]:
        """The live labels `search(..., source=source)` looks in, oldest first."""
        with self._lock:
            self._wait_for_reserved()
            return [info.label for info in self._under(source or "")]

    def _under(self, source: str) -> list[DocumentInfo]:
        """The live documents a `source` names: those whose labels start with it, but only
        the response itself for a response's own label (`t:3` is not `t:30` to `t:39`)."""
        named = self._documents.get(source)
        if named is not None and named.is_response:
            return [named]
        return [info for label, info in self._documents.items() if label.startswith(source)]

    def _fts_rows(self, table: str) -> int:
        """The rows of an FTS table: one per chunk of each live document it indexes."""
        return sum(
            info.chunk_count
            for info in self._documents.values()
            if table == FTS_TABLES[0] or info.has_trigrams
        )

    def first_hit(self, label: str) -> Hit | None:
        """The first chunk of a live document, as a search hit (None when there is none)."""
        with self._lock:
            self._wait_for_reserved()
            info = self._documents.get(label)
            if info is None or info.last_chunk < info.first_chunk:
                return None
            return self._hits([info.first_chunk])[0]

    def hits(self, chunk_ids: list[int]) -> list[Hit]:
        """Chunks by id, as search hits, in the given order; ids of no live document are
        left out."""
        with self._lock:
            self._wait_for_reserved()
            documents = list(self._documents.values())
            firsts = [info.first_chunk for info in documents]
            live = []
            for chunk_id in chunk_ids:
                at = bisect_right(firsts, chunk_id) - 1
                if at >= 0 and chunk_id <= documents[at].last_chunk:
                    live.append(chunk_id)
            return self._hits(live)

    def _hits(self, chunk_ids: list[int]) -> list[Hit]:
        """Load chunks by id, keeping the given order."""
        documents = list(self._documents.values())  # oldest first: chunk ids ascending
        firsts = [info.first_chunk for info in documents]
        hits = []
        for chunk_id in chunk_ids:
            label = documents[bisect_right(firsts, chunk_id) - 1].label
            chunk = self._chunks[label][chunk_id - self._documents[label].first_chunk]
            body = self._lines[label].span(chunk.start_line, chunk.end_line, chunk.part)
            hits.append(Hit(chunk_id, label, *chunk, body))
        return hits

    def read_lines(
        self, label: str, first: int, last: int, *, skip_chars: int = 0, max_chars: int
    ) -> list[LineSlice]:
        """Return lines first..last, the first from character `skip_chars`, up to ~`max_chars`.

        Each line is cut to `max_chars`; reading stops once that many characters were returned.

        Raises:
            LabelEvictedError: the document was evicted.
            IndexToolError: no document ever had this label.
        """
        return line_slices(self.lines(label), first, last, skip_chars, max_chars)

    def lines(self, label: str, *, raw: bool = False) -> Lines:
        """A live document's lines as IndexRead serves them, or with `raw` its text exactly
        as sent (the same lines, unless minified JSON was pretty-printed). Complete, never
        changed again: read them without the lock.

        Raises:
            LabelEvictedError: the document was evicted.
            IndexToolError: no document ever had this label.
        """
        with self._lock:
            self.document(label)  # waits for reserved documents; raises for an unknown label
            as_sent = self._raw.get(label) if raw else None
            return self._lines[label] if as_sent is None else as_sent

    def close(self) -> None:
        """Free the database; the store must not be used afterwards."""
        with self._lock:
            self._wait_for_reserved()
            self._connection.close()
            self._documents.clear()
            self._lines.clear()
            self._raw.clear()
            self._chunks.clear()
