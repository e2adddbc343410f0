"""A document's chunks handed from the thread that makes them to the thread that indexes them.

Chunking is Python work that holds the GIL; writing FTS rows is SQLite work that does not.
Fed a batch at a time while the rest is still being chunked, the store's writer indexes
on the other core, and a large response is searchable about when its chunking ends.
"""

import threading
from collections.abc import Iterator

from indexing.engine.chunker import Chunk, ChunkList, Lines

MIN_STEP_BYTES = 64 * 1024
MAX_STEP_BYTES = 1024 * 1024
"""The writer is woken for each step of this much text (an eighth of the document, within
these bounds): each wake-up waits for the GIL, so steps must be long enough to be worth it,
and each is one blob SQLite copies, so not too long."""


class DocumentAbandoned(Exception):
    """The document's maker gave it up (its placeholder would not have been smaller)."""


class ChunkFeed:
    """The chunks of one document, complete (`ChunkFeed(lines, chunks)`) or still coming.

    The maker `add`s chunks and ends with `finish(keep=...)`; the writer takes them by
    index ranges (`ranges`) as whole steps arrive, and learns at the end whether to keep
    the document. The lines may still be being written (`Lines.writing`): a chunk is
    handed over once its lines are there, and `expected_bytes` stands for their size
    until they all are.
    """

    def __init__(
        self, lines: Lines, chunks: ChunkList | None = None, *, expected_bytes: int | None = None
    ) -> None:
        self.lines = lines
        self.chunks = ChunkList() if chunks is None else chunks
        if lines.complete:
            expected_bytes = lines.utf8_size()
        elif expected_bytes is None:
            raise ValueError("lines still being written need their expected size")
        self.expected_bytes = expected_bytes
        self.step = min(MAX_STEP_BYTES, max(MIN_STEP_BYTES, self.expected_bytes // 8))
        self._handed_bytes = 0  # where the text of the chunks handed so far ends
        self._ready = len(self.chunks)
        self._finished = chunks is not None
        self._kept = True
        # Made only for chunks still to come (a catalog makes a thousand complete feeds).
        self._changed: threading.Condition | None = (
            threading.Condition() if chunks is None else None
        )

    def add(self, chunk: Chunk) -> None:
        """Add the next chunk; the writer is woken once a step of text is ready."""
        self.chunks.append(chunk)
        lines = self.lines
        if lines.written_bytes() - self._handed_bytes < self.step:
            return
        lines.flush()  # lines being written are indexed a block at a time
        if chunk.end_line > len(lines) and not lines.complete:
            return  # its last line is still being written: handed over with a later chunk
        end = lines.starts[min(chunk.end_line, len(lines))]
        if end - self._handed_bytes >= self.step:
            self._handed_bytes = end
            with self._changed:
                self._ready = len(self.chunks)
                self._changed.notify_all()

    def finish(self, *, keep: bool) -> None:
        """No more chunks; `keep=False` abandons the document."""
        self.chunks.seal()
        with self._changed:
            if keep:
                self._ready = len(self.chunks)
            self._finished, self._kept = True, keep
            self._changed.notify_all()

    def ranges(self) -> Iterator[tuple[int, int]]:
        """Ranges start..stop (exclusive) of chunk indexes, in order, as they are ready.

        Raises:
            DocumentAbandoned: at the end, when the maker gave the document up.
        """
        if self._changed is None:  # complete from the start
            if self._ready:
                yield 0, self._ready
            return
        start = 0
        while True:
            with self._changed:
                while self._ready == start and not self._finished:
                    self._changed.wait()
                stop, finished, kept = self._ready, self._finished, self._kept
            if stop > start:
                yield start, stop
                start = stop
            elif finished:
                if not kept:
                    raise DocumentAbandoned
                return
