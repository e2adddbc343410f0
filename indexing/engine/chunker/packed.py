"""Lines kept compressed: the text as sent beside minified JSON served pretty-printed.

That text is read only when asked for as sent (`IndexRead(raw=true)`), while the pretty
text is read for every search and page; kept whole beside it, it would double what the
store holds for such a response. zlib at its fastest level keeps a quarter to a half of
JSON, at about 7 ms a MiB to pack (before the pretty text is written, so that the two are
never held whole together) and 3 ms to unpack.
"""

from __future__ import annotations

import zlib

from indexing.engine.chunker.lines import Lines

PACK_LEVEL = 1


class PackedLines:
    """`Lines` compressed with zlib: their counts kept, their text unpacked on demand."""

    __slots__ = ("data", "line_count", "size")

    def __init__(self, data: bytes, line_count: int, size: int) -> None:
        self.data = data
        self.line_count = line_count
        self.size = size

    @classmethod
    def of(cls, lines: Lines) -> PackedLines:
        return cls(zlib.compress(lines.text, PACK_LEVEL), len(lines), lines.utf8_size())

    def __len__(self) -> int:
        return self.line_count

    def utf8_size(self) -> int:
        """`Lines.utf8_size` of the lines unpacked."""
        return self.size

    @property
    def text(self) -> bytes:
        """The UTF-8 text, unpacked."""
        return zlib.decompress(self.data)

    def unpacked(self) -> Lines:
        return Lines.of(self.text)
