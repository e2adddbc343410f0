"""A document's chunks held in flat arrays: four integers each, titles in one string."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import overload

from indexing.chunker.document import Chunk


class ChunkList(Sequence[Chunk]):
    """The chunks of one document, read as `Chunk` tuples but not kept as objects.

    A store keeps every indexed document's chunks: as tuples with their titles they cost
    about 150 bytes each (a 20 MiB Markdown document has tens of thousands), here 16 plus
    each distinct title once. Keeping no small objects matters as much as their size:
    made while a document is chunked, they would sit scattered among the freed objects
    of chunking and keep the allocator from handing that memory back.
    """

    __slots__ = ("_titles", "_title_ends", "_fields")

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        numbers: dict[str, int] = {}
        self._fields = array("I")  # title number, start_line, end_line, part (0: none)
        for title, start_line, end_line, part in chunks:
            number = numbers.setdefault(title, len(numbers))
            self._fields.extend((number, start_line, end_line, part or 0))
        self._titles = "".join(numbers)
        self._title_ends = array("q", accumulate(map(len, numbers)))

    def _title(self, number: int) -> str:
        start = self._title_ends[number - 1] if number else 0
        return self._titles[start : self._title_ends[number]]

    def __len__(self) -> int:
        return len(self._fields) // 4

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...
    def __getitem__(self, index: int | slice) -> Chunk | list[Chunk]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError("chunk index out of range")
        at = 4 * (index % len(self))
        number, start_line, end_line, part = self._fields[at : at + 4]
        return Chunk(self._title(number), start_line, end_line, part or None)

    def __iter__(self) -> Iterator[Chunk]:
        fields = iter(self._fields)
        rows = zip(fields, fields, fields, fields, strict=True)
        title, last = "", -1
        for number, start_line, end_line, part in rows:
            if number != last:  # consecutive chunks often share a title: sliced once
                title, last = self._title(number), number
            yield Chunk(title, start_line, end_line, part or None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
