"""The embeddings of a session's compressed responses, for hybrid search over them.

Computed after the placeholder is sent, on the worker's embedding queue
(`indexing.api.embedding_queue`: newest first, bounded, one thread at a lower priority than
serving), with the model `indexing.engine.hybrid.embedder` loads once per process. A content
embedded recently takes the vectors it got then as soon as it is indexed, without queueing
(`indexing.engine.response_vectors`, by digest).
Responses above `max_bytes` (`RESPONSE_VECTORS_MAX_BYTES`) get none: keywords alone rank
them. Until its vectors come, a response has static ones, computed as it is indexed from the
model's table of token vectors (`indexing.engine.static_vectors`, read or built once per
process on a thread of its own, never within a search). A search waits up to
`wait_seconds` for vectors expected within that time; failing them, it ranks by keywords
fused with the static vectors, or, without them (the table or the model still loading), it
embeds its keyword ranking's best `candidates` chunks at once, within the same bound
(`indexing.engine.candidate_vectors`), and ranks those by meaning too. A search whose
ranking lacked some or all of the vectors says so.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from indexing.api.catalog_documents import CATALOG_PREFIX
from indexing.api.embedding_queue import Job, embedding_queue
from indexing.engine.candidate_vectors import candidate_hits
from indexing.engine.compressor import Compression, CompressionStats
from indexing.engine.hybrid import embedder, embedder_unavailable, loaded_embedder
from indexing.engine.response_vectors import (
    ResponseVectors,
    any_reusable,
    hybrid_response_hits,
)
from indexing.engine.search import Ranked
from indexing.engine.store import SessionStore

logger = logging.getLogger(__name__)
_SUBMITTING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="response-vectors-submit")
"""Indexed responses go to the queue from here, in the order they were indexed (the queue
runs the newest first): the digest lookup of a content read again is no work for the event
loop, where a response indexed already calls back."""
QUEUE_CAP = 16
WAIT_SECONDS = 1.0
CANDIDATES = 15


class ResponseEmbeddings:
    """One session's response vectors: scheduled per response, used once all a search covers
    are ready; `model_dir` holds the embedding model, responses over `max_bytes` get none,
    at most `queue_cap` responses of the worker wait for vectors (embedded using at most
    `cpu_share` of one CPU), a search waits up to `wait_seconds` for vectors due by then,
    or else ranks with static vectors (`static_vectors`), or else embeds up to `candidates`
    of its keyword hits within that time (0: none)."""

    def __init__(
        self,
        *,
        model_dir: Path | None,
        max_bytes: int,
        queue_cap: int = QUEUE_CAP,
        wait_seconds: float = WAIT_SECONDS,
        cpu_share: float = 1.0,
        candidates: int = CANDIDATES,
        static_vectors: bool = True,
    ) -> None:
        self._vectors = ResponseVectors()
        self._model_dir = model_dir
        self._max_bytes = max_bytes
        self._queue = embedding_queue(queue_cap, cpu_share)
        self._wait = wait_seconds
        self._candidates = candidates
        self._static = static_vectors
        self._jobs: dict[str, Job] = {}
        self._unqueued = 0  # responses scheduled, not yet queued (or skipped)
        self._queued = threading.Condition()

    def schedule(self, store: SessionStore, compression: Compression) -> None:
        """Queue the response for vectors once it is indexed (a failed indexing was logged
        already)."""
        with self._queued:
            self._unqueued += 1
        compression.indexed.add_done_callback(
            lambda _: _SUBMITTING.submit(self._queue_job, store, compression)
        )

    def _queue_job(self, store: SessionStore, compression: Compression) -> None:
        try:
            if not compression.indexed.cancelled() and compression.indexed.exception() is None:
                self._submit(store, compression.indexed.result())
        finally:
            with self._queued:
                self._unqueued -= 1
                self._queued.notify_all()

    def _submit(self, store: SessionStore, stats: CompressionStats) -> None:
        if stats.original_bytes > self._max_bytes or embedder_unavailable(self._model_dir):
            self._vectors.skip(stats.label)
            return
        if self._reused(store, stats):
            return
        if self._static:  # seconds a MiB: neither on the event loop nor the writer's thread
            threading.Thread(
                target=self._approximate,
                args=(store, [stats.label]),
                name="static-vectors",
                daemon=True,
            ).start()
        job = Job(
            stats.label,
            stats.original_bytes,
            lambda: self._embed(store, stats.label, stats.original_bytes),
            lambda: self._keywords_only(stats.label),
        )
        self._jobs[stats.label] = job
        self._queue.submit(job)

    def _approximate(self, store: SessionStore, labels: list[str]) -> bool:
        """Give those of `labels` waiting for vectors static ones, if the table is loaded
        (else start loading it); whether it is."""
        from indexing.engine import static_vectors

        if not self._static:
            return False
        table, model = static_vectors.loaded_table(), loaded_embedder(self._model_dir)
        if table is None or model is None:
            static_vectors.load_in_background(self._model_dir, lambda: embedder(self._model_dir))
            return False
        for label in self._vectors.unapproximated(labels):
            self._vectors.approximate(store, label, model, table)
        return True

    def _reused(self, store: SessionStore, stats: CompressionStats) -> bool:
        """Whether the response's content was embedded recently and took those vectors now,
        before any search of it decides whether to wait (not when its turn on the queue
        comes, behind a job of minutes)."""
        if not any_reusable():  # then no model need be loaded here
            return False
        model = embedder(self._model_dir)
        if model is None or not self._vectors.reuse(store, stats.label, model):
            return False
        logger.info(
            "%s took the vectors of identical content (%d bytes)", stats.label, stats.original_bytes
        )
        return True

    def _keywords_only(self, label: str) -> None:
        self._jobs.pop(label, None)
        self._vectors.skip(label)

    def _embed(self, store: SessionStore, label: str, size: int) -> None:
        """The job: on the queue's thread, which also loads the model on first use."""
        started = time.perf_counter()
        model = embedder(self._model_dir)
        if model is None:
            self._keywords_only(label)
            return
        try:
            self._vectors.add(store, label, model, self._queue.pace)
        except Exception:
            self._vectors.skip(label)  # searches need not wait for it
            raise
        finally:
            self._jobs.pop(label, None)
        if self._vectors.ready([label]):
            logger.info(
                "%s embedded in %.1f s (%d bytes)", label, time.perf_counter() - started, size
            )

    def search(
        self, store: SessionStore, queries: list[str], source: str | None, limit: int
    ) -> Ranked | None:
        """Each query's hybrid hits once every response under `source` has its vectors (waiting
        up to `wait_seconds` for those due by then); None when there are none to rank with;
        else, with a note, hits ranked with static vectors where they stand for those not
        computed yet, or keyword hits, those of them embedded within `wait_seconds` ranked by
        meaning too."""
        deadline = time.perf_counter() + self._wait
        labels = [
            label for label in store.searched_labels(source) if not label.startswith(CATALOG_PREFIX)
        ]
        if not labels:
            return None
        with self._queued:  # a response just indexed is queued in a moment, on another thread
            self._queued.wait_for(lambda: not self._unqueued, timeout=self._wait)
        if self._due_in(labels) <= self._wait:
            self._vectors.wait(labels, deadline - time.perf_counter())
        hits = hybrid_response_hits(
            store, self._vectors, queries, source, limit, keywords_only=CATALOG_PREFIX
        )
        if hits is not None:
            return Ranked(hits)
        due = self._due_in(labels)
        if self._approximate(store, labels):
            hits = hybrid_response_hits(
                store, self._vectors, queries, source, limit, CATALOG_PREFIX, approximate=True
            )
            if hits is not None:
                return Ranked(hits, approximate_note(due))
        if not due:
            return None  # no vectors will come: keywords rank, as without vector search
        # loading the model would take longer than a search may wait
        model = loaded_embedder(self._model_dir)
        if self._candidates and model is not None:
            found = candidate_hits(
                store,
                model,
                queries,
                source,
                limit,
                candidates=self._candidates,
                deadline=deadline,
            )
            if found is not None:
                return Ranked(found.hits, candidates_note(found.by_meaning, due))
        keywords = [store.search(query, source=source, limit=limit) for query in queries]
        return Ranked(keywords, not_ready_note(due))

    def _due_in(self, labels: list[str]) -> float:
        """Seconds until the last of `labels` has its vectors (0 when none is pending)."""
        pending = self._vectors.pending(labels)
        return max((self._queue.due_in(self._jobs.get(label)) for label in pending), default=0.0)

    def close(self) -> None:
        """Stop embedding for this session (before its store closes)."""
        self._vectors.close()


def not_ready_note(due_in: float) -> str:
    """What a search ranked by keywords alone says while vectors are computed."""
    return (
        "Ranked by keywords alone: this response's vectors are still being computed"
        f"{_expected(due_in)}; the same search then also matches by meaning."
    )


APPROXIMATE_NOTE = "Ranked by keywords and a fast approximation of meaning"


def approximate_note(due_in: float) -> str:
    """What a search says that ranked with static vectors."""
    if not due_in:
        return f"{APPROXIMATE_NOTE}."
    return (
        f"{APPROXIMATE_NOTE}: this response's vectors are still being computed"
        f"{_expected(due_in)}; the same search then matches by meaning more closely."
    )


CANDIDATES_NOTE = "Ranked by keywords, and the best of them by meaning too"


def candidates_note(by_meaning: int, due_in: float) -> str:
    """What a search says that ranked only its keyword candidates by meaning."""
    return (
        f"{CANDIDATES_NOTE} ({by_meaning} passage{'s' * (by_meaning != 1)}): this "
        f"response's vectors are still being computed{_expected(due_in)}; the same search "
        "then matches all of it by meaning."
    )


def _expected(due_in: float) -> str:
    return "" if math.isinf(due_in) else f" (expected in about {max(1, round(due_in))} s)"
