"""The embeddings of a session's compressed responses, for hybrid search over them.

Computed after the placeholder is sent, on one process-wide thread at a lower priority
than serving (one response at a time: a MiB of text takes minutes of CPU, and the event
loop keeps the other core), with the model `indexing.engine.hybrid.embedder` loads once per
process. Responses above `max_bytes` (`RESPONSE_VECTORS_MAX_BYTES`) get none: keywords alone
rank them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

from indexing.api.catalog_documents import CATALOG_PREFIX
from indexing.engine.compressor import Compression
from indexing.engine.hybrid import embedder
from indexing.engine.response_vectors import ResponseVectors, hybrid_response_hits
from indexing.engine.store import Hit, SessionStore

logger = logging.getLogger(__name__)
EMBEDDING_NICENESS = 10
_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()


def _run_jobs() -> None:
    # Below the event loop's priority: serving calls comes first (Linux nices a thread alone).
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), EMBEDDING_NICENESS)
    while True:
        job = _jobs.get()
        try:
            job()
        except Exception:
            logger.exception("Embedding a compressed response failed")


def _submit(job: Callable[[], None]) -> None:
    """Queue `job` for the process's embedding thread: a daemon, so that the process exits
    without waiting for responses still queued (a pool's threads would run them all first)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = threading.Thread(target=_run_jobs, name="response-embeddings", daemon=True)
            _worker.start()
    _jobs.put(job)


class ResponseEmbeddings:
    """One session's response vectors: scheduled per response, used once all are ready;
    `model_dir` holds the embedding model, responses over `max_bytes` get none."""

    def __init__(self, *, model_dir: Path | None, max_bytes: int) -> None:
        self._vectors = ResponseVectors()
        self._model_dir = model_dir
        self._max_bytes = max_bytes

    def schedule(self, store: SessionStore, compression: Compression) -> None:
        """Embed the response once it is indexed (a failed indexing was logged already)."""
        _submit(lambda: self._embed(store, compression))

    def _embed(self, store: SessionStore, compression: Compression) -> None:
        if compression.indexed.exception() is not None:
            return
        model = embedder(self._model_dir)
        if model is None:
            return
        stats = compression.indexed.result()
        if stats.original_bytes > self._max_bytes:
            self._vectors.skip(stats.label)
            return
        started = time.perf_counter()
        try:
            self._vectors.add(store, stats.label, model)
        except Exception:
            self._vectors.skip(stats.label)  # searches need not wait for it
            raise
        if self._vectors.ready([stats.label]):
            logger.info(
                "%s embedded in %.1f s (%d bytes)",
                stats.label,
                time.perf_counter() - started,
                stats.original_bytes,
            )

    def search(
        self, store: SessionStore, queries: list[str], source: str | None, limit: int
    ) -> list[list[Hit]] | None:
        """Each query's hybrid hits once every response under `source` has its vectors, else
        None."""
        return hybrid_response_hits(
            store, self._vectors, queries, source, limit, keywords_only=CATALOG_PREFIX
        )

    def close(self) -> None:
        """Stop embedding for this session (before its store closes)."""
        self._vectors.close()
