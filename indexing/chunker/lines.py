"""A document's lines kept as one text plus the offsets where lines start.

A list of line strings costs about 57 bytes per line on top of the text (2x the text for
typical 45-character lines); this keeps 8 bytes per line and slices lines on demand.
The text is a `str`, or UTF-8 (a `bytearray`) once `compact()` made it so: a `str` holding
a single character beyond Latin-1 takes 2 or 4 bytes for every character.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate, islice, repeat
from operator import add

from indexing.text import LINE_PART_CHARS, utf8_size

BLOCK_CHARS = 1 << 16
"""Long texts are split into lines a block of about this many characters at a time."""


def _starts_after(lengths: Iterator[int] | list[int], first: int) -> Iterator[int]:
    """Where each following line starts, given the line lengths and where the first starts."""
    return islice(accumulate(map(add, lengths, repeat(1)), initial=first), 1, None)


class Lines:
    """The lines of `text` split on `\\n` (a final `\\n` ends the last line, as in an editor).

    `text` is a `str` or UTF-8 bytes (`utf8`); offsets count its characters or its bytes, and lines
    are always returned as `str`. `starts[i]` is where line i begins; `starts[len(self)]`
    is one past the last line's newline, real or implied, so line i is
    `text[starts[i] : starts[i + 1] - 1]`. In a text with `\\r\\n` line ends (`crlf`), the
    `\\r` is not part of the line: the text is kept as it came (copying it would cost up to
    4 bytes a character) and lines are cleaned as they are sliced.
    """

    __slots__ = ("text", "starts", "utf8", "crlf")

    def __init__(self, text: str | bytes | bytearray, starts: array) -> None:
        self.text = text
        self.starts = starts
        self.utf8 = not isinstance(text, str)
        self.crlf = not self.utf8 and "\r" in text

    @classmethod
    def of(cls, text: str | bytes | bytearray) -> Lines:
        """Index the lines of `text` (`sanitize(text, keep_crlf=True)`, or its UTF-8 bytes)."""
        newline = "\n" if isinstance(text, str) else b"\n"
        starts = array("q", [0])
        position, length = 0, len(text)
        while position < length:
            stop = text.find(newline, position + BLOCK_CHARS)
            stop = length if stop < 0 else stop + 1
            parts = text[position:stop].split(newline)
            if not parts[-1]:
                parts.pop()
            starts.extend(_starts_after(map(len, parts), position))
            position = stop
        return cls(text, starts)

    @classmethod
    def join(cls, lines: list[str]) -> Lines:
        """Lines from a list of line strings (each without `\\n`)."""
        return cls.over("\n".join(lines), lines)

    @classmethod
    def over(cls, text: str, lines: list[str]) -> Lines:
        """The Lines of `text`, which `lines` already splits (`split_lines(text)`)."""
        starts = array("q", [0])
        starts.extend(_starts_after(map(len, lines), 0))
        return cls(text, starts)

    def compact(self) -> Lines:
        """The same lines in the least memory: ASCII text as it is, other text as UTF-8.

        The store keeps documents this way (a copy, unless the text is ASCII).
        """
        if self.utf8 or self.text.isascii():
            return self
        text, data = self.text, bytearray()
        # A block at a time: encoding a wide str at once reserves 4 bytes a character.
        for start in range(0, len(text), BLOCK_CHARS):
            data += text[start : start + BLOCK_CHARS].encode("utf-8")
        if self.crlf:
            data = data.replace(b"\r\n", b"\n")
        return Lines.of(data)

    def expanded(self) -> Lines:
        """The same lines over a `str` (undoes `compact()`), for slicing many parts."""
        return Lines.of(self.text.decode("utf-8")) if self.utf8 else self

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, index: int) -> str:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("line index out of range")
        return self._str(self.text[self.starts[index] : self._end(index)])

    def __iter__(self) -> Iterator[str]:
        """Every line, split a block at a time (no list of every line at once)."""
        for block in range(0, len(self), 4096):
            yield from self.joined(block, min(block + 4096, len(self)) - 1).split("\n")

    @staticmethod
    def _str(piece: str | bytes | bytearray) -> str:
        return piece if isinstance(piece, str) else piece.decode("utf-8")

    def _end(self, index: int) -> int:
        """Where line `index` ends: its newline (or `\\r\\n`)."""
        end = self.starts[index + 1] - 1
        return end - 1 if self.crlf and self.text[end - 1 : end] == "\r" else end

    def length(self, index: int) -> int:
        """Characters of 0-based line `index`, without its newline."""
        if self.utf8:
            return len(self[index])
        return self._end(index) - self.starts[index]

    def chars(self, first: int, last: int) -> int:
        """About the characters of lines first..last with their newlines (for sizing)."""
        return self.starts[last + 1] - self.starts[first]

    def joined(self, first: int, last: int) -> str:
        """0-based lines first..last joined with `\\n` (one slice of the text)."""
        if last < first:
            return ""
        text = self._str(self.text[self.starts[first] : self._end(last)])
        return text.replace("\r\n", "\n") if self.crlf else text

    def span(self, start_line: int, end_line: int, part: int | None = None) -> str:
        """1-based lines start..end, or part `part` of line `start_line` (as IndexRead serves)."""
        if part is None:
            return self.joined(start_line - 1, min(end_line, len(self)) - 1)
        if start_line > len(self):
            return ""
        return self.piece(start_line - 1, (part - 1) * LINE_PART_CHARS, LINE_PART_CHARS)[1]

    def piece(self, index: int, first_char: int, max_chars: int) -> tuple[int, str]:
        """The length of 0-based line `index` and up to `max_chars` of it from `first_char`.

        A long `str` line is not copied whole (UTF-8 lines are decoded whole).
        """
        if self.utf8:
            line = self[index]
            return len(line), line[first_char : first_char + max_chars]
        start, end = self.starts[index], self._end(index)
        begin = min(start + first_char, end)
        return end - start, self.text[begin : min(begin + max_chars, end)]

    def index_at(self, position: int) -> int:
        """The 0-based line holding character `position` of the text (its newline included)."""
        return bisect_right(self.starts, position) - 1

    def head(self, count: int) -> list[str]:
        """The first `count` lines (or all of them) as a list, for sampling a document."""
        return self.joined(0, min(count, len(self)) - 1).split("\n") if len(self) else []

    def utf8_size(self) -> int:
        """UTF-8 bytes of the lines, each with its newline."""
        if not len(self):
            return 0
        # The text is the lines joined, perhaps with the final newline: count that once.
        unterminated = self.starts[-1] - 1 == len(self.text)
        if self.utf8:
            return len(self.text) + unterminated
        carriage_returns = self.text.count("\r") if self.crlf else 0
        return utf8_size(self.text) + unterminated - carriage_returns
