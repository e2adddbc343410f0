"""Filling a `SessionStore` in tests the way production does: chunked, reserved, committed
(responses, through `ResponseCompressor`), or chunked and added together (catalogs,
through `add_documents`)."""

import time
from dataclasses import replace

from indexing.engine.chunker import DocumentFormat, chunk_document
from indexing.engine.stats import DocumentStats
from indexing.engine.store import SessionStore
from indexing.engine.store_feed import ChunkFeed


def add_text(
    store: SessionStore,
    label: str,
    text: str,
    *,
    tool: str,
    run: int | None = None,
    format: DocumentFormat | None = None,
    trigrams: bool = True,
) -> DocumentStats:
    """Chunk and index `text` under `label`; seconds include chunking.

    `trigrams=False` skips the substring index even for a small document.

    Raises:
        ValueError: the label is already in use (labels are never reused).
        DocumentTooLargeError: the text alone exceeds the store's `max_bytes`.
    """
    started = time.perf_counter()
    document = chunk_document(text, format)
    feed = ChunkFeed(document.lines, document.chunks)
    reservation = store.reserve(
        label, document.format, feed, tool=tool, run=run, trigrams=trigrams, raw=document.raw
    )
    stats = reservation.commit()
    return replace(stats, seconds=time.perf_counter() - started)


def add_texts(
    store: SessionStore,
    documents: list[tuple[str, str]],
    *,
    tool: str,
    format: DocumentFormat | None = None,
    trigrams: bool = True,
) -> list[DocumentStats]:
    """Chunk and index each (label, text) in one transaction (`add_documents`): all of
    them, or none.

    Raises:
        ValueError: a label is already in use, or given twice.
        DocumentTooLargeError: the documents together exceed the store's `max_bytes`.
    """
    started = time.perf_counter()
    parsed = [(label, chunk_document(text, format)) for label, text in documents]
    stats = store.add_documents(parsed, tool=tool, trigrams=trigrams)
    seconds = (time.perf_counter() - started) / max(1, len(stats))
    return [replace(entry, seconds=seconds) for entry in stats]
