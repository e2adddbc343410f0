"""A document's lines kept as its UTF-8 text plus the offsets where lines start.

A list of line strings costs about 57 bytes per line on top of the text (2x the text for
typical 45-character lines); this keeps 4 bytes per line and decodes lines on demand.
The text is UTF-8, not a `str`: a `str` holding one character beyond Latin-1 takes 2 or 4
bytes for every character, and every scan of it reads that much more. Offsets and sizes
count bytes; what is served (`length`, `piece`, parts) counts characters.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator

import numpy as np

from indexing.engine.chunker.packed_text import PackedText
from indexing.engine.text import LINE_PART_CHARS

BLOCK_BYTES = 1 << 16
"""Newlines are looked for a block of this many bytes at a time (bounding numpy's buffers);
text being written is indexed once this much of it is waiting."""
NEWLINE, SPACE = ord("\n"), ord(" ")
CARRIAGE_RETURN = b"\r"
_STARTS_DTYPES = {"I": np.uint32, "q": np.int64}
"""numpy's types for the typecodes of `Lines.starts`."""


class Lines:
    """The lines of UTF-8 `text` split on `\\n` only (a final `\\n` ends the last line, as in
    an editor and `wc -l`). The text is kept exactly as given (`encode_document`): a `\\r`
    of a `\\r\\n` or lone `\\r` line end stays in its line's text.

    `starts[i]` is where line i begins; `starts[len(self)]` is one past the last line's
    newline, real or implied, so line i is `text[starts[i] : starts[i + 1] - 1]`. Lines are
    returned as `str`.

    Lines may also be written as they are made (`Lines.writing()`, `write`, `finish`):
    until finished, only the lines whose newline has been indexed are there, and another
    thread may read those meanwhile (never holding a view of `text`, which grows).

    Text read seldom, or a piece at a time, may be kept packed (`PackedText`: `packed`,
    `writing(packed=True)`, then `pack_through` as it is written); it is then only ever
    sliced.
    """

    __slots__ = (
        "text",
        "starts",
        "ascii",
        "carriage_return",
        "complete",
        "_waiting",
        "_waiting_bytes",
    )

    def __init__(
        self, text: bytes | bytearray | PackedText, starts: array, *, complete: bool = True
    ) -> None:
        self.text = text
        self.starts = starts
        self.ascii = text.isascii()  # then a line's characters are its bytes
        self.carriage_return = CARRIAGE_RETURN in text  # in a line's text: kept as sent
        self.complete = complete
        self._waiting: list[bytes] = []  # written, not indexed yet
        self._waiting_bytes = 0

    @classmethod
    def of(cls, text: bytes | bytearray) -> Lines:
        """Index the lines of UTF-8 `text` (numpy finds the newlines, at C speed)."""
        lines = cls(text, _starts_array(len(text)))
        lines._index(text, 0)
        lines._end()
        return lines

    @classmethod
    def packed(cls, text: bytes | bytearray) -> Lines:
        """`Lines.of(text)`, the text kept packed."""
        lines = cls.of(text)
        lines.text = PackedText.of(text)
        return lines

    @classmethod
    def writing(cls, *, packed: bool = False) -> Lines:
        """Empty lines to `write` into, then `finish`; `packed`: kept packed as written."""
        return cls(PackedText() if packed else bytearray(), _starts_array(0), complete=False)

    def write(self, data: bytes) -> None:
        """Append UTF-8 text (whole lines or not); it is indexed a block at a time."""
        self._waiting.append(data)
        self._waiting_bytes += len(data)
        if self._waiting_bytes >= BLOCK_BYTES:
            self.flush()

    def pack_through(self, end: int) -> None:
        """Text kept packed as it is written: pack it up to byte `end` (whole blocks), the
        text before being needed only in pieces from now on. Only one thread packs."""
        if type(self.text) is PackedText:
            self.text.pack(end)

    def finish(self) -> None:
        """Everything is written: index the rest, the last line's newline implied."""
        self.flush()
        self._end()
        self.complete = True

    def written_bytes(self) -> int:
        """UTF-8 bytes written so far, indexed or still waiting to be."""
        return len(self.text) + self._waiting_bytes

    def flush(self) -> None:
        """Index what is waiting now: every line whose newline has been written is there."""
        if not self._waiting:
            return
        data = b"".join(self._waiting)
        self._waiting.clear()
        self._waiting_bytes = 0
        self.ascii = self.ascii and data.isascii()
        self.carriage_return = self.carriage_return or CARRIAGE_RETURN in data
        offset = len(self.text)
        self.text += data
        self._index(data, offset)

    def _index(self, data: bytes | bytearray, offset: int) -> None:
        """Add the line starts after each newline of `data`, written at `offset`."""
        if self.starts.typecode == "I" and offset + len(data) >= 1 << 32:
            self.starts = array("q", self.starts)  # a new array: readers keep the old one
        starts = self.starts
        dtype = _STARTS_DTYPES[starts.typecode]
        for block in range(0, len(data), BLOCK_BYTES):
            chunk = np.frombuffer(data, np.uint8, min(BLOCK_BYTES, len(data) - block), block)
            newlines = np.flatnonzero(chunk == NEWLINE)
            newlines += offset + block + 1  # the next line starts after the newline
            offsets = newlines.astype(dtype)
            starts.frombytes(memoryview(offsets).cast("B"))

    def _end(self) -> None:
        text = self.text
        if text and text[-1] != NEWLINE:  # the last line's newline is implied
            self.starts.append(len(text) + 1)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def starts_view(self) -> np.ndarray:
        """`starts` as a numpy array (a view: no copy)."""
        return np.frombuffer(self.starts, _STARTS_DTYPES[self.starts.typecode])

    def __getitem__(self, index: int) -> str:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("line index out of range")
        return self.text[self.starts[index] : self.starts[index + 1] - 1].decode()

    def __iter__(self) -> Iterator[str]:
        """Every line, decoded a block at a time (no list of every line at once)."""
        for block in range(0, len(self), 4096):
            yield from self.joined(block, min(block + 4096, len(self)) - 1).split("\n")

    def length(self, index: int) -> int:
        """Characters of 0-based line `index`, without its newline (written, if still being
        written)."""
        if index >= len(self):
            self.flush()
        size = self.starts[index + 1] - 1 - self.starts[index]
        return size if self.ascii else len(self[index])

    def size(self, first: int, last: int) -> int:
        """UTF-8 bytes of lines first..last with their newlines (for sizing chunks)."""
        return self.starts[last + 1] - self.starts[first]

    def joined(self, first: int, last: int) -> str:
        """0-based lines first..last joined with `\\n` (one slice of the text)."""
        if last < first:
            return ""
        return self.text[self.starts[first] : self.starts[last + 1] - 1].decode()

    def span(self, start_line: int, end_line: int, part: int | None = None) -> str:
        """1-based lines start..end, or part `part` of line `start_line` (as IndexRead serves)."""
        if part is None:
            return self.joined(start_line - 1, min(end_line, len(self)) - 1)
        if start_line > len(self):
            return ""
        return self.piece(start_line - 1, (part - 1) * LINE_PART_CHARS, LINE_PART_CHARS)[1]

    def piece(self, index: int, first_char: int, max_chars: int) -> tuple[int, str]:
        """The length of 0-based line `index` and up to `max_chars` of it from `first_char`.

        An ASCII line is sliced without decoding it whole.
        """
        start, end = self.starts[index], self.starts[index + 1] - 1
        if not self.ascii:
            line = self[index]
            return len(line), line[first_char : first_char + max_chars]
        begin = min(start + first_char, end)
        return end - start, self.text[begin : min(begin + max_chars, end)].decode()

    def index_at(self, position: int) -> int:
        """The 0-based line holding byte `position` of the text (its newline included)."""
        return bisect_right(self.starts, position) - 1

    def utf8_size(self) -> int:
        """UTF-8 bytes of the lines, each with its newline."""
        return self.starts[-1]

    def ends_with_newline(self) -> bool:
        """Whether the text ends with `\\n` (else the last line's newline is implied)."""
        return 0 < self.starts[-1] == len(self.text)


def _starts_array(size: int) -> array:
    """The line starts of a text of `size` bytes, the first one: 4 bytes a line if they fit."""
    return array("q" if size >= 1 << 32 else "I", [0])
