"""ResponseCompressor: index a large tool response and hand back a placeholder instead."""

import logging
import time
from dataclasses import dataclass

from indexing.chunker import chunk_document
from indexing.labels import LABELS, LabelCounter
from indexing.placeholder import render_placeholder
from indexing.stats import CompressionStats
from indexing.store import DocumentTooLargeError, Reservation, SessionStore
from indexing.text import sanitize, utf8_size

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Compression:
    """A response accepted for indexing: the placeholder to deliver, and the writing left."""

    placeholder: str
    reservation: Reservation
    original_bytes: int
    started: float

    def index(self) -> CompressionStats:
        """Write the document to the store (reads of the store wait for it) and record it."""
        store = self.reservation.store
        with store.exclusive():  # readers see the document and its statistics together
            indexed = self.reservation.commit()
            stats = CompressionStats(
                label=indexed.label,
                tool=self.reservation.tool,
                run=self.reservation.run,  # always set for responses
                original_bytes=self.original_bytes,
                delivered_bytes=utf8_size(self.placeholder),
                lines=indexed.lines,
                chunks=indexed.chunks,
                seconds=time.perf_counter() - self.started,
            )
            store.stats.append(stats)
        return stats


class ResponseCompressor:
    """Decides, for one session's store, whether a response is delivered or indexed."""

    def __init__(self, store: SessionStore, counter: LabelCounter = LABELS) -> None:
        self.store = store
        self.counter = counter

    def compress(
        self,
        tool_name: str,
        text: str,
        *,
        threshold: int,
        search_tool: str = "IndexSearch",
        read_tool: str = "IndexRead",
    ) -> tuple[str | None, CompressionStats | None]:
        """Return (placeholder, stats) when `text` was indexed, or (None, None) to pass it on.

        Synchronous and CPU-bound for large text: call it through `asyncio.to_thread`.
        """
        compression = self.prepare(
            tool_name, text, threshold=threshold, search_tool=search_tool, read_tool=read_tool
        )
        if compression is None:
            return None, None
        return compression.placeholder, compression.index()

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
        would not be smaller, and text larger than the store's whole memory bound. The
        placeholder can be delivered at once: `index()` writes the store, and reads of the
        store wait for it.
        """
        original_bytes = utf8_size(text)
        if original_bytes <= threshold:
            return None
        started = time.perf_counter()
        document = chunk_document(text)
        # A run number skipped by a placeholder that turns out bigger is harmless: runs
        # only promise never to be reused.
        tool_name = sanitize(tool_name)
        label = self.counter.next_label(tool_name)
        placeholder = render_placeholder(
            label=label.text,
            original_bytes=original_bytes,
            lines=document.lines,
            outline=document.outline,
            search_tool=search_tool,
            read_tool=read_tool,
        )
        if utf8_size(placeholder) >= original_bytes:
            return None
        try:
            reservation = self.store.reserve(label.text, document, tool=tool_name, run=label.run)
        except DocumentTooLargeError:
            logger.warning(
                "Response of %s not indexed: %d bytes exceed the store bound",
                tool_name,
                original_bytes,
            )
            return None
        return Compression(placeholder, reservation, original_bytes, started)
