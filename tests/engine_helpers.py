"""Shortcuts over the search engine that only tests and benchmarks use.

The gateway indexes responses through `ResponseCompressor.prepare` and catalogs through
`SessionStore.add_documents`, and serves IndexSearch with `search_with_labels`; these
wrap the same calls for text given whole.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from indexing.engine.chunker import DocumentFormat, chunk_document, start_chunking
from indexing.engine.compressor import ResponseCompressor
from indexing.engine.search import search_with_labels
from indexing.engine.stats import CompressionStats
from indexing.engine.store import DocumentStats, SessionStore
from indexing.engine.store_feed import ChunkFeed


def format_search(
    store: SessionStore, queries: object, source: object = None, limit: object = None
) -> str:
    """IndexSearch's text for these arguments (`search_with_labels` without the labels).

    Raises:
        IndexToolError: bad arguments, or a `source` no live label starts with.
    """
    return search_with_labels(store, queries, source, limit)[0]


def detect_format(text: str) -> DocumentFormat:
    """The format `chunk_document` finds in `text`: JSON, Markdown, code or plain text."""
    return start_chunking(text, whole_json=True).format


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
    """Chunk and index each (label, text) in one transaction: all of them, or none.

    Raises:
        ValueError: a label is already in use, or given twice.
        DocumentTooLargeError: the documents together exceed the store's `max_bytes`.
    """
    started = time.perf_counter()
    parsed = [(label, chunk_document(text, format)) for label, text in documents]
    stats = store.add_documents(parsed, tool=tool, trigrams=trigrams)
    seconds = (time.perf_counter() - started) / max(1, len(stats))
    return [replace(entry, seconds=seconds) for entry in stats]


def compress_text(
    compressor: ResponseCompressor, tool_name: str, text: str, **options: Any
) -> tuple[str | None, CompressionStats | None]:
    """`prepare` (same options), then wait for the writer: (placeholder, stats) when
    `text` was indexed, or (None, None) to pass it on."""
    compression = compressor.prepare(tool_name, text, **options)
    if compression is None:
        return None, None
    return compression.placeholder, compression.index()
