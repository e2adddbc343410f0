"""Find the lines that start with a pattern by one scan of the whole text at C speed.

Matching a regex line by line costs a Python call per line; a `^` pattern under `re.M`
is tried at every character. A pattern led by `\\n` is tried only where a line starts,
and the regex engine skips to each newline itself.
"""

import re
from collections.abc import Iterator

from indexing.engine.chunker.lines import Lines

LINE_SPACE = r"[^\S\n]"
"""Whitespace within a line, for patterns scanned over whole texts (`\\s` would cross lines)."""


class LinePattern:
    """A regex matched at the line starts of a UTF-8 text; in `pattern`, `$` ends a line
    (`re.M` is implied). Matched against bytes: classes such as `\\w` and `\\s` are ASCII.
    """

    __slots__ = ("_first_line", "_later_lines")

    def __init__(self, pattern: str) -> None:
        self._first_line = re.compile(pattern.encode(), re.M)
        self._later_lines = re.compile(rf"\n(?:{pattern})".encode(), re.M)

    def count(self, lines: Lines, stop: int) -> int:
        """How many lines before line `stop` match (a pattern never reaching the next line)."""
        text, end = lines.text, lines.starts[min(stop, len(lines))]
        first = self._first_line.match(text, 0, end) is not None
        return first + len(self._later_lines.findall(text, 0, end))

    def match(self, lines: Lines, index: int) -> re.Match | None:
        """The match at the start of 0-based line `index`, if it matches."""
        return self._first_line.match(lines.text, lines.starts[index])

    def found(self, lines: Lines, stop: int) -> bool:
        """True when a line before line `stop` matches."""
        return next(self.matches(lines, stop), None) is not None

    def matches(self, lines: Lines, stop: int | None = None) -> Iterator[tuple[int, re.Match]]:
        """(0-based line index, match) for every line before line `stop` that matches."""
        text = lines.text
        end = lines.starts[len(lines) if stop is None else min(stop, len(lines))]
        if (match := self._first_line.match(text, 0, end)) is not None:
            yield 0, match
        index = position = 0  # a line seen and where it starts
        for match in self._later_lines.finditer(text, 0, end):
            line_start = match.start() + 1
            index += text.count(b"\n", position, line_start)
            position = line_start
            yield index, match
