"""A document's chunks: one `Chunk`, and all of them held in flat arrays (four integers
each, titles in one string)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import NamedTuple, overload


class Chunk(NamedTuple):
    """A searchable piece of a document covering lines `start_line`..`end_line` (1-based).

    `part` is set when the chunk is one 2,000-character part of a single long line, matching
    the `N-M` parts IndexRead serves. Its text is always those lines (`ParsedDocument.body`).
    """

    title: str
    start_line: int
    end_line: int
    part: int | None = None


class ChunkColumns(NamedTuple):
    """Some chunks of a `ChunkList` as columns: what writing their FTS rows takes, with no
    tuple made per chunk."""

    titles: list[str]
    start_lines: array  # 1-based
    end_lines: array
    parts: array  # 0: the chunk is whole lines


class ChunkList(Sequence[Chunk]):
    """The chunks of one document, read as `Chunk` tuples but not kept as objects.

    A store keeps every indexed document's chunks: as tuples with their titles they cost
    about 150 bytes each (a 20 MiB Markdown document has tens of thousands), here 16 plus
    each distinct title once. Keeping no small objects matters as much as their size:
    made while a document is chunked, they would sit scattered among the freed objects
    of chunking and keep the allocator from handing that memory back.

    `ChunkList(chunks)` is complete; `ChunkList()` is filled by `append` (while another
    thread may read the chunks already there) until `seal` packs its titles.
    """

    __slots__ = ("_fields", "_numbers", "_filling_titles", "_titles", "_title_ends")

    def __init__(self, chunks: Iterable[Chunk] | None = None) -> None:
        self._fields = array("I")  # title number, start_line, end_line, part (0: none)
        self._numbers: dict[str, int] = {}
        self._filling_titles: list[str] | None = []  # by number, until sealed
        self._titles = ""
        self._title_ends = array("q")
        if chunks is not None:
            for chunk in chunks:
                self.append(chunk)
            self.seal()

    def append(self, chunk: Chunk) -> None:
        """Add a chunk at the end (before `seal`)."""
        title, start_line, end_line, part = chunk
        number = self._numbers.get(title)
        if number is None:
            number = self._numbers[title] = len(self._numbers)
            self._filling_titles.append(title)  # type: ignore[union-attr]
        self._fields.extend((number, start_line, end_line, part or 0))

    def seal(self) -> None:
        """No more chunks: the titles become one string, the objects are freed."""
        self._titles = "".join(self._numbers)
        self._title_ends = array("q", accumulate(map(len, self._numbers)))
        self._filling_titles = None  # readers in other threads switch to the string
        self._numbers = {}

    def _title(self, number: int) -> str:
        filling = self._filling_titles
        if filling is not None:
            return filling[number]
        start = self._title_ends[number - 1] if number else 0
        return self._titles[start : self._title_ends[number]]

    def __len__(self) -> int:
        return len(self._fields) // 4

    def columns(self, start: int = 0, stop: int | None = None) -> ChunkColumns:
        """The chunks start..stop (all by default) as columns."""
        stop = len(self) if stop is None else stop
        fields = self._fields[4 * start : 4 * stop]  # a copy: `append` may go on meanwhile
        title = self._title
        titles = [title(number) for number in fields[0::4]]
        return ChunkColumns(titles, fields[1::4], fields[2::4], fields[3::4])

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...
    def __getitem__(self, index: int | slice) -> Chunk | list[Chunk]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[at] for at in range(start, stop, step)]
            return list(self._chunks(self._fields[4 * start : 4 * stop]))
        if not -len(self) <= index < len(self):
            raise IndexError("chunk index out of range")
        at = 4 * (index % len(self))
        number, start_line, end_line, part = self._fields[at : at + 4]
        return Chunk(self._title(number), start_line, end_line, part or None)

    def __iter__(self) -> Iterator[Chunk]:
        return self._chunks(self._fields[:])  # the chunks there now, however many follow

    def _chunks(self, fields: array) -> Iterator[Chunk]:
        values = iter(fields)
        title, last = "", -1
        for number, start_line, end_line, part in zip(values, values, values, values, strict=True):
            if number != last:  # consecutive chunks often share a title: sliced once
                title, last = self._title(number), number
            yield Chunk(title, start_line, end_line, part or None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
