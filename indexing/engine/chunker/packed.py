"""Lines kept compressed: the text as sent beside minified JSON served pretty-printed.

That text is read only when asked for as sent (`IndexRead(raw=true)`), while the pretty
text is read for every search and page; kept whole beside it, it would double what the
store holds for such a response. zlib at its fastest level keeps a quarter to a half of
JSON (about 7 ms a MiB to pack, 3 ms to unpack).
"""

from __future__ import annotations

import zlib
from concurrent.futures import Future, ThreadPoolExecutor

from indexing.engine.chunker.lines import Lines

PACK_LEVEL = 1
_PACKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="localrouter-packing")
"""zlib lets go of the GIL while it packs: the text is packed while it is chunked."""


class PackedLines:
    """`Lines` compressed with zlib: their counts kept, their text unpacked on demand."""

    __slots__ = ("_packed", "line_count", "size")

    def __init__(self, packed: Future[bytes], line_count: int, size: int) -> None:
        self._packed = packed
        self.line_count = line_count
        self.size = size

    @classmethod
    def of(cls, lines: Lines) -> PackedLines:
        """Pack `lines` in the packing thread (their text is freed once it is packed)."""
        try:
            packed = _PACKER.submit(zlib.compress, lines.text, PACK_LEVEL)
        except RuntimeError:  # the interpreter is shutting down: no thread starts
            packed = Future()
            packed.set_result(zlib.compress(lines.text, PACK_LEVEL))
        return cls(packed, len(lines), lines.utf8_size())

    def __len__(self) -> int:
        return self.line_count

    def utf8_size(self) -> int:
        """`Lines.utf8_size` of the lines unpacked."""
        return self.size

    @property
    def text(self) -> bytes:
        """The UTF-8 text, unpacked."""
        return zlib.decompress(self._packed.result())

    def unpacked(self) -> Lines:
        return Lines.of(self.text)
