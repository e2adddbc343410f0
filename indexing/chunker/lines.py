"""A document's lines kept as one string plus the offsets where lines start.

A list of line strings costs about 57 bytes per line on top of the text (2x the text for
typical 45-character lines); this keeps 8 bytes per line and slices lines on demand.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate, islice, repeat
from operator import add

from indexing.text import LINE_PART_CHARS, utf8_size

BLOCK_CHARS = 1 << 20
"""Long texts are split into lines a block of about this many characters at a time."""


def _starts_after(lengths: Iterator[int] | list[int], first: int) -> Iterator[int]:
    """Where each following line starts, given the line lengths and where the first starts."""
    return islice(accumulate(map(add, lengths, repeat(1)), initial=first), 1, None)


class Lines:
    """The lines of `text` split on `\\n` (a final `\\n` ends the last line, as in an editor).

    `starts[i]` is where line i begins; `starts[len(self)]` is one past the last line's
    newline, real or implied, so line i is `text[starts[i] : starts[i + 1] - 1]`. In a text
    with `\\r\\n` line ends (`crlf`), the `\\r` is not part of the line: the text is kept
    as it came (copying it would cost up to 4 bytes a character) and lines are cleaned as
    they are sliced.
    """

    __slots__ = ("text", "starts", "crlf")

    def __init__(self, text: str, starts: array) -> None:
        self.text = text
        self.starts = starts
        self.crlf = "\r" in text

    @classmethod
    def of(cls, text: str) -> Lines:
        """Index the lines of `text` (`sanitize(text, keep_crlf=True)`)."""
        starts = array("q", [0])
        position, length = 0, len(text)
        while position < length:
            stop = text.find("\n", position + BLOCK_CHARS)
            stop = length if stop < 0 else stop + 1
            parts = text[position:stop].split("\n")
            if parts[-1] == "":
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

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, index: int) -> str:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("line index out of range")
        return self.text[self.starts[index] : self._end(index)]

    def __iter__(self) -> Iterator[str]:
        """Every line, split a block at a time (no list of every line at once)."""
        for block in range(0, len(self), 4096):
            yield from self.joined(block, min(block + 4096, len(self)) - 1).split("\n")

    def _end(self, index: int) -> int:
        """Where line `index` ends: its newline (or `\\r\\n`)."""
        end = self.starts[index + 1] - 1
        return end - 1 if self.crlf and self.text[end - 1 : end] == "\r" else end

    def length(self, index: int) -> int:
        """Characters of 0-based line `index`, without its newline."""
        return self._end(index) - self.starts[index]

    def chars(self, first: int, last: int) -> int:
        """About the characters of lines first..last with their newlines (for sizing)."""
        return self.starts[last + 1] - self.starts[first]

    def joined(self, first: int, last: int) -> str:
        """0-based lines first..last joined with `\\n` (one slice of the text)."""
        if last < first:
            return ""
        text = self.text[self.starts[first] : self._end(last)]
        return text.replace("\r\n", "\n") if self.crlf else text

    def span(self, start_line: int, end_line: int, part: int | None = None) -> str:
        """1-based lines start..end, or part `part` of line `start_line` (as IndexRead serves)."""
        if part is None:
            return self.joined(start_line - 1, min(end_line, len(self)) - 1)
        if start_line > len(self):
            return ""
        offset = self.starts[start_line - 1] + (part - 1) * LINE_PART_CHARS
        end = self._end(start_line - 1)
        return self.text[min(offset, end) : min(offset + LINE_PART_CHARS, end)]

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
        carriage_returns = self.text.count("\r") if self.crlf else 0
        return utf8_size(self.text) + (1 if unterminated else 0) - carriage_returns
