"""ResponseCompressor: index a large tool response and hand back a placeholder instead."""

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from itertools import chain

from indexing.engine.chunker import Chunking, NotStreamable, start_chunking
from indexing.engine.labels import LABELS, LabelCounter
from indexing.engine.placeholder import render_placeholder
from indexing.engine.stats import CompressionStats
from indexing.engine.store import DocumentTooLargeError, SessionStore
from indexing.engine.store_entry import Reservation
from indexing.engine.store_feed import ChunkFeed, DocumentAbandoned
from indexing.engine.text import sanitize, utf8_size

logger = logging.getLogger(__name__)


_WRITERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="localrouter-indexing")
"""Index responses while they are chunked, and after their placeholder went out. Threads of
their own: reads waiting for a write in the default executor can never hold them up. A
served process switches threads often enough for the two to overlap
(`gateway/serving/process_tuning.py`, `tune_thread_switching`)."""


@dataclass(frozen=True, slots=True)
class Compression:
    """A response accepted for indexing: the placeholder to deliver, and its indexing.

    The store is written on a writer thread while the response is chunked; reads of the
    store wait for it. `indexed` completes with the statistics, or with what failed.
    """

    placeholder: str
    indexed: Future[CompressionStats]

    def index(self) -> CompressionStats:
        """Wait until the response is indexed; raises what indexing raised."""
        return self.indexed.result()


class ResponseCompressor:
    """Decides, for one session's store, whether a response is delivered or indexed."""

    def __init__(self, store: SessionStore, counter: LabelCounter = LABELS) -> None:
        self.store = store
        self.counter = counter

    def prepare(
        self,
        tool_name: str,
        text: str,
        *,
        threshold: int,
        search_tool: str = "IndexSearch",
        read_tool: str = "IndexRead",
    ) -> Compression | None:
        """Chunk `text`, reserve its label and render the placeholder; None to pass it on.

        Text up to `threshold` UTF-8 bytes passes through; so does text whose placeholder
        would not be smaller, and text larger than the store's whole memory bound. A writer
        thread indexes the chunks while the rest are being made (FTS5 runs without the
        GIL), and is left finishing: the placeholder can be delivered at once, reads of the
        store wait for the writer, and `index()` waits for it too.
        """
        if not _exceeds(text, threshold):
            return None
        started = time.perf_counter()
        tool_name = sanitize(tool_name)
        render = partial(render_placeholder, search_tool=search_tool, read_tool=read_tool)
        try:
            return self._index(tool_name, start_chunking(text), render, started)
        except NotStreamable:  # a large JSON response is read whole after all
            return self._index(tool_name, start_chunking(text, whole_json=True), render, started)

    def _index(
        self,
        tool_name: str,
        chunking: Chunking,
        render: Callable[..., str],
        started: float,
    ) -> Compression | None:
        """Reserve a label, index the chunks as they are taken, render the placeholder.

        The label is taken once the first chunk is made (text that only opens like JSON
        takes none). If taking the chunks raises, what was written is dropped and the label
        left unused; so is a JSON response whose pretty-printed text outgrew the store.
        """
        original_bytes = chunking.source_bytes
        first = next(chunking.chunks, None)
        # A run number skipped by a placeholder that turns out bigger (or a JSON response
        # read again whole) is harmless: runs only promise never to be reused.
        label = self.counter.next_label(tool_name)
        feed = ChunkFeed(chunking.lines, expected_bytes=original_bytes)
        try:
            reservation = self.store.reserve(
                label.text, chunking.format, feed, tool=tool_name, run=label.run, raw=chunking.raw
            )
        except DocumentTooLargeError as error:
            _log_too_large(tool_name, error)
            return None
        placeholder_bytes: Future[int] = Future()  # known once the chunks are all in
        record = partial(
            _record, self.store, reservation, original_bytes, placeholder_bytes, started
        )
        indexed = _start(record)  # writes the chunks as they come
        kept = False
        try:
            for chunk in chain(() if first is None else (first,), chunking.chunks):
                feed.add(chunk)
            raw_bytes = 0 if chunking.raw is None else chunking.raw.utf8_size()
            self.store.check_fits(chunking.lines.utf8_size() + raw_bytes)  # pretty may outgrow
            placeholder = render(
                label=label.text,
                original_bytes=original_bytes,
                lines=chunking.lines,
                outline=chunking.outline,
                pretty_from=None if chunking.raw is None else len(chunking.raw),
            )
            placeholder_bytes.set_result(utf8_size(placeholder))
            kept = placeholder_bytes.result() < original_bytes
        except DocumentTooLargeError as error:
            _log_too_large(tool_name, error)
            return None
        finally:
            feed.finish(keep=kept)  # the writer commits, or drops what it wrote
            if indexed is None:  # no writer thread: the interpreter is shutting down
                indexed = _run_here(record)
        return Compression(placeholder, indexed) if kept else None


def _log_too_large(tool_name: str, error: DocumentTooLargeError) -> None:
    logger.warning("Response of %s not indexed: %s", tool_name, error)


def _exceeds(text: str, limit: int) -> bool:
    """Whether `text` takes more than `limit` UTF-8 bytes (1 to 4 a character): counted only
    when its length leaves it open."""
    return len(text) > limit or (4 * len(text) > limit and utf8_size(text) > limit)


def _record(
    store: SessionStore,
    reservation: Reservation,
    original_bytes: int,
    placeholder_bytes: Future[int],
    started: float,
) -> CompressionStats | None:
    """Write a reserved response to `store` and record it; None when it was abandoned."""
    with store.exclusive():  # readers see the response and its statistics together
        try:
            indexed = reservation.commit()
        except DocumentAbandoned:
            return None
        stats = CompressionStats(
            label=indexed.label,
            tool=reservation.tool,
            run=reservation.run,  # always set for responses
            original_bytes=original_bytes,
            delivered_bytes=placeholder_bytes.result(),
            lines=indexed.lines,
            chunks=indexed.chunks,
            seconds=time.perf_counter() - started,
        )
        store.stats.append(stats)
    return stats


def _start(job: Callable[[], CompressionStats | None]) -> Future | None:
    """Run `job` on a writer thread; None when no thread can start any more."""
    try:
        return _WRITERS.submit(job)
    except RuntimeError:  # the interpreter is shutting down
        return None


def _run_here(job: Callable[[], CompressionStats | None]) -> Future:
    """Run `job` in this thread, its outcome as a finished future."""
    done: Future = Future()
    try:
        done.set_result(job())
    except Exception as error:
        done.set_exception(error)
    return done
