"""ResponseCompressor: index a large tool response and hand back a placeholder instead."""

import logging
import time

from indexing.chunker import chunk_document
from indexing.labels import LABELS, LabelCounter
from indexing.placeholder import render_placeholder
from indexing.stats import CompressionStats
from indexing.store import DocumentTooLargeError, SessionStore
from indexing.text import sanitize, utf8_size

logger = logging.getLogger(__name__)


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

        Text up to `threshold` UTF-8 bytes passes through; so does text whose placeholder
        would not be smaller, and text larger than the store's whole memory bound.
        Synchronous and CPU-bound for large text: call it through `asyncio.to_thread`.
        """
        original_bytes = utf8_size(text)
        if original_bytes <= threshold:
            return None, None
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
        delivered_bytes = utf8_size(placeholder)
        if delivered_bytes >= original_bytes:
            return None, None
        try:
            indexed = self.store.add_document(label.text, document, tool=tool_name, run=label.run)
        except DocumentTooLargeError:
            logger.warning(
                "Response of %s not indexed: %d bytes exceed the store bound",
                tool_name,
                original_bytes,
            )
            return None, None
        stats = CompressionStats(
            label=label.text,
            tool=tool_name,
            run=label.run,
            original_bytes=original_bytes,
            delivered_bytes=delivered_bytes,
            lines=indexed.lines,
            chunks=indexed.chunks,
            seconds=time.perf_counter() - started,
        )
        self.store.stats.append(stats)
        return placeholder, stats
