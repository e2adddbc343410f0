"""Where the lines of a JSON document's pretty-printed text lie in the text as sent.

JSON is chunked by key path over its pretty-printed text (`jsondoc`), where every member
starts a line; the text served and searched is the one the upstream sent, in whatever
layout it has. The two are tied by their line breaks: the pretty text breaks a line after
each `{` or `[` opening a non-empty container and after each `,`, and before each `}` or
`]` closing one, nowhere else; and those characters (outside strings) are the same, in
the same order, in every JSON text of the same value. So line k of the pretty text begins
at the text's k-th such break, wherever the text puts its own line ends.
Found by numpy scans of the UTF-8 text a block at a time (strings are told apart by
counting the quotes that no backslash escapes).
"""

import re
from array import array
from collections.abc import Iterator

import numpy as np

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.document import OutlineEntry
from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.sizing import MAX_CHUNK_CHARS, make_chunk, split_windows

SCAN_BYTES = 1 << 16
"""The text is scanned a block of this many bytes at a time: numpy's buffers for one block
take several times its size."""
_CASE_BIT = ord("{") - ord("[")
"""`{` and `}` are `[` and `]` with this bit set (and no other byte is)."""
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPENERS, _CLOSERS, _COMMA = b"{[", b"}]", ord(",")
_WHITESPACE = re.compile(rb"[ \t\n\r]*")
_JSON_WHITESPACE = b" \t\n\r"
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(_JSON_WHITESPACE)] = True
_SPACE_STEPS = 64
MAX_SPAN_BYTES = 2 * MAX_CHUNK_CHARS
"""A chunk mapped onto the text as sent keeps its lines up to this size (an indentation
wider than the pretty text's two spaces makes them larger); beyond, or holding a line too
long for one chunk, its lines are cut into windows and parts as plain text's are."""


class JsonLayout:
    """The line breaks of the pretty text of a JSON document, found in the text as sent."""

    __slots__ = ("sent", "breaks", "after")

    def __init__(self, sent: Lines) -> None:
        self.sent = sent
        positions = _structural_positions(sent.text)
        data = np.frombuffer(sent.text, np.uint8) if sent.text else np.zeros(0, np.uint8)
        chars = data[positions]
        opens = (chars == _OPENERS[0]) | (chars == _OPENERS[1])
        closes = (chars == _CLOSERS[0]) | (chars == _CLOSERS[1])
        breaking = np.ones(len(positions), dtype=bool)
        # An opener right before a closer: an empty container (`{}`, `[ ]`, no line break)
        # unless a string or scalar stands between them (`["a"]`).
        pairs = np.flatnonzero(opens[:-1] & closes[1:])
        after_opener = _first_non_space(sent.text, data, positions[pairs] + 1)
        empty = pairs[after_opener == positions[pairs + 1]]
        breaking[empty] = False
        breaking[empty + 1] = False
        # Not numpy arrays, which are slow to read an item at a time as chunks are mapped;
        # nor lists, which take 40 bytes an item.
        self.after = (opens | (chars == _COMMA))[breaking].tobytes()
        """Whether each break follows its character (1, else 0: it precedes a closer)."""
        self.breaks = array("q", positions[breaking].astype(np.int64).tobytes())
        """Where each break's character is in the text, in order."""

    def matches(self, pretty_line_count: int) -> bool:
        """Whether the pretty text has the lines these breaks make (duplicate keys, which a
        parse keeps one of, make fewer)."""
        return pretty_line_count == len(self.breaks) + 1

    def start_line(self, pretty_index: int) -> int:
        """The 0-based line of the text where 0-based pretty line `pretty_index` begins."""
        if pretty_index == 0:
            position = 0
        else:
            index = min(pretty_index, len(self.breaks)) - 1
            position = self.breaks[index] + self.after[index]
        text = self.sent.text
        position = _WHITESPACE.match(text, position).end()  # type: ignore[union-attr]
        return self.sent.index_at(min(position, max(0, len(text) - 1)))

    def end_line(self, pretty_index: int) -> int:
        """The 0-based line of the text where 0-based pretty line `pretty_index` ends."""
        text = self.sent.text
        if pretty_index >= len(self.breaks):
            position = len(text)
        elif self.after[pretty_index]:
            return self.sent.index_at(self.breaks[pretty_index])
        else:
            position = self.breaks[pretty_index]
        while position > 0:  # back over the whitespace before it, a window at a time
            window = text[max(0, position - 64) : position]
            kept = len(window.rstrip(_JSON_WHITESPACE))
            position -= len(window) - kept
            if kept:
                break
        return self.sent.index_at(max(0, position - 1))

    def chunks(
        self, pretty_chunks: Iterator[Chunk], outline: list[OutlineEntry]
    ) -> Iterator[Chunk]:
        """The chunks of the pretty text as chunks of the text as sent, in order; then the
        outline's lines (filled in as the chunks were made) are moved there too.

        A chunk whose lines came out too large, or hold a line longer than a chunk, is cut
        into windows and parts (`split_windows`); later chunks falling in lines already
        cut so are dropped.
        """
        sent, cut = self.sent, -1  # lines up to `cut` were cut into windows and parts
        for chunk in pretty_chunks:
            start = max(self.start_line(chunk.start_line - 1), cut + 1)
            end = self.end_line(chunk.end_line - 1)
            if start > end:
                continue
            size = sent.size(start, end)
            if size <= MAX_CHUNK_CHARS or (
                size <= MAX_SPAN_BYTES
                and all(sent.size(line, line) <= MAX_CHUNK_CHARS for line in range(start, end + 1))
            ):
                yield make_chunk(start, end, chunk.title)
            else:
                yield from split_windows(sent.starts, sent.length, start, end, chunk.title)
                cut = end
        outline[:] = [entry._replace(line=self.start_line(entry.line - 1) + 1) for entry in outline]


def _structural_positions(text: bytes | bytearray) -> np.ndarray:
    """Where `{`, `}`, `[`, `]` and `,` are in UTF-8 JSON `text`, outside strings."""
    found = []
    in_string = 0  # 1 while the blocks so far end inside a string
    data = np.frombuffer(text, np.uint8) if text else np.zeros(0, np.uint8)
    for offset in range(0, len(text), SCAN_BYTES):
        block = data[offset : offset + SCAN_BYTES]
        quotes = np.flatnonzero(block == _QUOTE)
        # A quote after a backslash may be escaped (a block's first quote may follow one in
        # the block before).
        maybe_escaped = np.flatnonzero((block[quotes - 1] == _BACKSLASH) | (quotes == 0))
        if len(maybe_escaped):
            escaped = _escaped(data, quotes[maybe_escaped] + offset)
            quotes = np.delete(quotes, maybe_escaped[escaped])
        folded = block & ~np.uint8(_CASE_BIT)  # `{` as `[`, `}` as `]`: two tests, not four
        structural = np.flatnonzero(
            (folded == _OPENERS[1]) | (folded == _CLOSERS[1]) | (block == _COMMA)
        )
        outside = (np.searchsorted(quotes, structural) + in_string) % 2 == 0
        found.append(structural[outside] + offset)
        in_string = (in_string + len(quotes)) % 2
    return np.concatenate(found) if found else np.zeros(0, np.int64)


def _first_non_space(text: bytes, data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The first position at or after each of `positions` that holds no JSON whitespace
    (`len(data)` when none does): one numpy step per byte of whitespace (as indentation
    takes), for up to _SPACE_STEPS bytes; a longer run is skipped by a regex."""
    found = positions.copy()
    going = np.flatnonzero(found < len(data))
    for _ in range(_SPACE_STEPS):
        if not len(going):
            return found
        going = going[_IS_SPACE[data[found[going]]]]
        found[going] += 1
        going = going[found[going] < len(data)]
    for index in going.tolist():
        found[index] = _WHITESPACE.match(text, int(found[index])).end()  # type: ignore[union-attr]
    return found


def _escaped(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Whether each character at `positions` follows an odd run of backslashes: one numpy
    step per backslash of the longest run."""
    runs = np.zeros(len(positions), np.int64)
    going = np.ones(len(positions), dtype=bool)
    back = 1
    while going.any():
        before = positions - back
        going &= before >= 0
        going[going] = data[before[going]] == _BACKSLASH
        runs += going
        back += 1
    return runs % 2 == 1
