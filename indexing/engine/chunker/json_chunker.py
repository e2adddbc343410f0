"""JsonChunker: the chunks and outline of a parsed JSON value as its pretty text lays it out.

Chunking walks the parsed value only where a chunk boundary or a Contents entry can fall:
a container that fits in one chunk is measured from its own pretty-printed text (line
count and size), never visited value by value. Chunks are made as they are taken, so a
writer can index the first ones while the rest are found.
"""

from bisect import bisect_right
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from itertools import accumulate, repeat
from typing import Any

import numpy as np

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.document import CONTENTS_BYTES, OutlineEntry
from indexing.engine.chunker.json_members import Members
from indexing.engine.chunker.json_naming import NAMES_SHOWN, batch_title, item_naming, member_path
from indexing.engine.chunker.json_parse import Encoder
from indexing.engine.chunker.lines import NEWLINE, SPACE, Lines
from indexing.engine.chunker.sizing import (
    MAX_CHUNK_CHARS,
    TARGET_CHUNK_CHARS,
    make_chunk,
    split_line,
)
from indexing.engine.text import one_line

ROOT_PATH = "$"
_OUTLINE_DEPTH = 2
"""Members of containers above this depth are outline entries: the top level's, and theirs."""
_MIN_ENTRY_BYTES = len(OutlineEntry(1, "", 1).contents_item(0)) + 1
"""What an outline entry below the top level takes in Contents at the least (newline too)."""
_CLOSING = (ord("]"), ord("}"))
_MIN_ITEMS_BATCHED = 8
"""Lists this long are measured and batched from their own text (`_batch_items`): for
fewer items, visiting each costs less."""


def _members(value: object) -> Iterator[tuple[str | None, object, int | None]]:
    """(key, or None in an array; value; bytes after it on its last line: 1 for a comma, 0
    for the last member, None for a `Members` that knows once read) for each member of a
    container."""
    if type(value) is dict:
        return zip(value.keys(), value.values(), _commas(len(value)), strict=True)
    if type(value) is list:
        return zip(repeat(None), value, _commas(len(value)))
    assert isinstance(value, Members), type(value)
    return iter(value)


def _commas(count: int) -> Iterator[int]:
    """1 for each of `count` members but the last, 0 for it."""
    yield from repeat(1, count - 1)
    yield 0


@dataclass(slots=True)
class _Measured:
    """Where a value sits (0-based lines). `chunks` is None while it fits in one chunk, else
    its chunks not yielded yet (none, for a container walked member by member)."""

    start: int
    end: int
    chars: int
    title: str
    name: str
    chunks: list[Chunk] | None


Walk = Generator[Chunk, None, _Measured]
"""Yields a container's chunks as they are made; returns its measure."""


class JsonChunker:
    """Finds the chunks and outline of a value as its encoder writes it.

    Sizes are counted in UTF-8 bytes of the text written, except for a line long enough
    to be cut into parts, whose characters count.
    Chunks are made as they are taken (the outline is complete once they all are).
    """

    def __init__(self, encode: Encoder, lines: Lines | None) -> None:
        self.encode = encode
        self.lines = lines  # the text `encode` writes, when it is served
        self.outline: list[OutlineEntry] = []
        self.line_count = 0
        """The lines of the value's pretty text, once its chunks are all taken."""
        self._outline_depth = _OUTLINE_DEPTH
        self._deepest_entries = 0  # in the outline's deepest level (below the top one)

    def _add_entry(self, line: int, title: str, depth: int) -> None:
        """Add an outline entry at `depth`, while its level can still be shown.

        Contents show a level below the top one whole or not at all: once the entries of
        the deepest level could not fit even at their shortest, that level is dropped, and
        the containers whose members it lists need no longer be walked for it.
        """
        self.outline.append(OutlineEntry(line, title, depth))
        if depth and depth == self._outline_depth - 1:
            self._deepest_entries += 1
            if self._deepest_entries * _MIN_ENTRY_BYTES > CONTENTS_BYTES:
                self._outline_depth = depth
                self.outline[:] = [entry for entry in self.outline if entry.depth < depth]

    def chunks(self, value: object) -> Iterator[Chunk]:
        """The chunks of `value`'s pretty-printed lines (`Members` read member by member)."""
        measured = self._leaf(value, 0, 0, 0, 0, ROOT_PATH, ROOT_PATH)
        if measured is None:
            measured = yield from self._walk(value, 0, 0, 0, 0, ROOT_PATH, ROOT_PATH, ROOT_PATH)
        self.line_count = measured.end + 1
        if measured.chunks is None:
            yield make_chunk(measured.start, measured.end, ROOT_PATH)
        else:
            yield from measured.chunks

    def _leaf(
        self,
        value: object,
        line: int,
        depth: int,
        before: int,
        after: int | None,
        title: str,
        name: str,
    ) -> _Measured | None:
        """Measure `value` without walking it (a scalar, an empty container, or a container
        that fits in one chunk); None when it must be walked.

        It is written from 0-based `line` at depth `depth`, after `before` bytes on that
        line (indentation and `"key": `) and before `after` ones on its last (a comma or
        none).
        """
        kind = type(value)
        if kind is Members:
            return None
        if (kind is not dict and kind is not list) or not value:  # as JSON parsers make them
            written = self.encode(value)
            length = before + len(written) + after
            if length >= MAX_CHUNK_CHARS and self.lines is not None:
                length = self.lines.length(line)  # count characters, as parts do
            if length < MAX_CHUNK_CHARS:
                return _Measured(line, line, length + 1, title, name, None)
            # One line longer than a chunk: the parts IndexRead serves are its chunks.
            return _Measured(line, line, length + 1, title, name, split_line(length, line, title))
        if depth >= self._outline_depth and len(value) * (2 * depth + 4) <= MAX_CHUNK_CHARS:
            text = self.encode(value)  # perhaps small enough for one chunk: measure it whole
            lines = text.count(b"\n") + 1  # each below the first indented `depth` levels
            chars = before + len(text) + 2 * depth * (lines - 1) + after + 1
            if chars <= MAX_CHUNK_CHARS:
                return _Measured(line, line + lines - 1, chars, title, name, None)
        return None

    def _walk(
        self,
        value: object,
        first: int,
        depth: int,
        before: int,
        after: int | None,
        path: str,
        title: str,
        name: str,
    ) -> Walk:
        """Measure a non-empty container written as `_leaf` says, member by member; yield
        its chunks once it is known to have some (to be larger than one chunk). `after` is
        None for a `Members`, which knows it once read through.

        Small consecutive members are batched into chunks; a member with chunks of its own
        keeps them. Keys are None in an array.
        """
        if (
            type(value) is list
            and depth >= self._outline_depth
            and len(value) >= _MIN_ITEMS_BATCHED
        ):
            batched = self._batch_items(value, first, depth, before, after, path, title, name)
            if batched is not None:
                measured, chunks_made = batched
                yield from chunks_made
                return measured
        chunks = _ContainerChunks(path)
        chars = before + 2 * depth + 4  # its opening and closing lines (and `after`, below)
        indent, line = depth + 1, first + 1
        for position, (key, child, child_after) in enumerate(_members(value)):
            if key is not None:
                if depth < self._outline_depth:
                    self._add_entry(line + 1, one_line(key), depth)
                child_before = 2 * indent + len(self.encode(key)) + 2  # `"key": `
                child_path = child_title = member_path(path, key)
                child_name = key
            else:
                child_name, child_path, child_title = item_naming(path, position, child)
                if depth < self._outline_depth:
                    self._add_entry(line + 1, child_name, depth)
                child_before = 2 * indent
            measured = self._leaf(
                child, line, indent, child_before, child_after, child_title, child_name
            )
            if measured is None:
                walk = self._walk(
                    child,
                    line,
                    indent,
                    child_before,
                    child_after,
                    child_path,
                    child_title,
                    child_name,
                )
                while True:  # the member's chunks follow what comes before it
                    try:
                        chunk = next(walk)
                    except StopIteration as walked:
                        measured = walked.value
                        break
                    yield from chunks.flush()
                    yield chunk
            if measured.chunks is None:
                if ready := chunks.add(measured):
                    yield from ready
            else:
                yield from chunks.flush()
                yield from measured.chunks
            chars += measured.chars
            if chars > MAX_CHUNK_CHARS and chunks.held is not None:
                yield from chunks.known_to_have_chunks()
            line = measured.end + 1
        chars += value.after if after is None else after  # type: ignore[union-attr]
        if chars <= MAX_CHUNK_CHARS:
            return _Measured(first, line, chars, title, name, None)
        yield from chunks.flush()
        return _Measured(first, line, chars, title, name, [])

    def _batch_items(
        self,
        items: list[Any],
        first: int,
        depth: int,
        before: int,
        after: int,
        path: str,
        title: str,
        name: str,
    ) -> tuple[_Measured, list[Chunk]] | None:
        """`_walk` for a list whose items need no outline entries and each fit in a chunk,
        without visiting them one by one: measured from the list's own text, the items are
        batched as `_ContainerChunks` batches them. None when an item is larger than a
        chunk (the list must be walked).
        """
        if len(self.encode(items[0])) > MAX_CHUNK_CHARS:
            return None  # most likely walked: not worth writing the whole list to find out
        text = self.encode(items)
        item_lines, item_chars = _measure_items(text, depth)
        if len(item_lines) != len(items) or max(item_chars) > MAX_CHUNK_CHARS:
            return None
        last = first + text.count(b"\n")  # its closing line
        chars = before + 2 * depth + 4 + sum(item_chars) + after
        if chars <= MAX_CHUNK_CHARS:
            return _Measured(first, last, chars, title, name, None), []
        sums = [0, *accumulate(item_chars)]
        ends = [*item_lines[1:], last - first]  # the line after each item
        named = any(type(item) is dict for item in items)  # else names are positions
        chunks = []
        start = 0
        while start < len(items):
            # The batch grows while it holds at most TARGET_CHUNK_CHARS, by one item at least.
            stop = max(start + 1, bisect_right(sums, sums[start] + TARGET_CHUNK_CHARS) - 1)
            if stop - start == 1:
                chunk_title = item_naming(path, start, items[start])[2]
            else:
                shown = range(start, min(stop, start + NAMES_SHOWN))
                names = (
                    (item_naming(path, n, items[n])[0] for n in shown)
                    if named
                    else map("[{}]".format, shown)
                )
                chunk_title = batch_title(path, names)
            chunks.append(
                make_chunk(first + item_lines[start], first + ends[stop - 1] - 1, chunk_title)
            )
            start = stop
        return _Measured(first, last, chars, title, name, []), chunks


def _measure_items(text: bytes, depth: int) -> tuple[list[int], list[int]]:
    """For a non-empty list's pretty text: the line each item starts on (0 is the list's
    opening line), and the bytes each item takes with the list written at `depth`.

    An item starts on a line indented one level (two spaces) that does not close an item
    written over several lines; it ends where the next one starts, or the closing line.
    """
    data = np.frombuffer(text + b"\0\0", np.uint8)
    starts = np.flatnonzero(data == NEWLINE) + 1  # of lines 1 and on
    third = data[starts + 2]
    opens_item = (
        (data[starts] == SPACE)
        & (data[starts + 1] == SPACE)
        & (third != SPACE)
        & (third != _CLOSING[0])
        & (third != _CLOSING[1])
    )
    bounds = np.append(np.flatnonzero(opens_item), len(starts) - 1)  # indexes into `starts`
    offsets = starts[bounds]
    chars = offsets[1:] - offsets[:-1] + 2 * depth * (bounds[1:] - bounds[:-1])
    return (bounds[:-1] + 1).tolist(), chars.tolist()


class _ContainerChunks:
    """A container's chunks as its members are measured: small members batched, each
    batch of about TARGET_CHUNK_CHARS one chunk. Chunks are held back until the container
    is known to have chunks at all: a container of one chunk's size has none of its own.
    """

    __slots__ = ("path", "held", "batch", "size")

    def __init__(self, path: str) -> None:
        self.path = path
        self.held: list[Chunk] | None = []  # None once the container is known to have chunks
        self.batch: list[_Measured] = []
        self.size = 0

    def add(self, member: _Measured) -> list[Chunk]:
        """A member without chunks of its own: the chunks to yield now."""
        ready = []
        if self.batch and self.size + member.chars > TARGET_CHUNK_CHARS:
            ready.append(self._batch_chunk())
        self.batch.append(member)
        self.size += member.chars
        if self.held is None:
            return ready
        self.held += ready
        return []

    def known_to_have_chunks(self) -> list[Chunk]:
        """The container is larger than one chunk: the chunks held back."""
        ready, self.held = self.held or [], None
        return ready

    def flush(self) -> list[Chunk]:
        """The container has chunks: those held back and the batch so far (before a
        member's own chunks, or at the end)."""
        ready = self.known_to_have_chunks()
        if self.batch:
            ready.append(self._batch_chunk())
        return ready

    def _batch_chunk(self) -> Chunk:
        batch = self.batch
        title = batch[0].title
        if len(batch) > 1:
            title = batch_title(self.path, (member.name for member in batch))
        self.batch, self.size = [], 0
        return make_chunk(batch[0].start, batch[-1].end, title)
