"""Text kept zlib-packed a block at a time: minified JSON's pretty-printed lines, and its
text as sent beside them.

Minified JSON is served pretty-printed (`jsondoc`), and its text as sent is kept for
`IndexRead(raw=true)`. Kept as bytes, the two took 1.5x the response (a compact array of
records: pretty text 1.2x, and the text as sent packed whole), most of what the store held of
it and of its peak while indexing it. Packed in blocks of `BLOCK_BYTES` with zlib at its
fastest level, JSON keeps a quarter to a third of its size, at about 10 ms a MiB to pack
(with the GIL released), and a read unpacks only the blocks it slices: about 0.1 ms each,
one to three for an IndexRead page or a search hit.

The pretty text is packed as it is written (`+=`), a block as soon as it is whole: it is
never held whole unpacked, and the writer thread indexing it unpacks the blocks of each
step it writes.
"""

from __future__ import annotations

import sys
import zlib
from typing import overload

BLOCK_BYTES = 1 << 15
"""Bytes of text per packed block (64 KiB packs 3% smaller, and takes twice as long to
unpack for a slice of one line)."""
PACK_LEVEL = 1


class PackedText:
    """UTF-8 text packed in blocks of `BLOCK_BYTES`, read as `Lines` read their `bytes`:
    `len`, slices (`text[start:end]`, as `bytes`), single bytes (`text[-1]`), `isascii`,
    and `in` (which unpacks every block). Written by `+=`: one thread writes while others
    slice what was written before.
    """

    __slots__ = ("_blocks", "_state", "_ascii")

    def __init__(self) -> None:
        self._blocks: list[bytes] = []  # packed, each BLOCK_BYTES unpacked; only appended to
        # (bytes packed, the last block's unpacked bytes): replaced as one, so that a reader
        # on another thread always sees the blocks and the tail that follows them.
        self._state: tuple[int, bytearray] = (0, bytearray())
        self._ascii = True

    @classmethod
    def of(cls, data: bytes | bytearray) -> PackedText:
        text = cls()
        text += data
        return text

    def __iadd__(self, data: bytes | bytearray) -> PackedText:
        self._ascii = self._ascii and data.isascii()
        packed, tail = self._state
        room = BLOCK_BYTES - len(tail)
        if len(data) < room:
            tail += data  # in place: readers only slice what was there before
            return self
        with memoryview(data) as view:
            tail += view[:room]
            blocks = [tail]  # whole ones, packed without copying `data` first
            blocks += (view[at : at + BLOCK_BYTES] for at in range(room, len(view), BLOCK_BYTES))
            rest = bytearray(blocks.pop() if len(blocks[-1]) < BLOCK_BYTES else b"")
            self._blocks += (zlib.compress(block, PACK_LEVEL) for block in blocks)
        self._state = (packed + BLOCK_BYTES * len(blocks), rest)
        return self

    def __len__(self) -> int:
        packed, tail = self._state
        return packed + len(tail)

    def isascii(self) -> bool:
        return self._ascii

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> bytes: ...
    def __getitem__(self, index: int | slice) -> int | bytes:
        packed, tail = self._state
        size = packed + len(tail)
        if isinstance(index, int):
            if index < 0:
                index += size
            if not 0 <= index < size:
                raise IndexError("index out of range")
            return self[index : index + 1][0]
        start, end, step = index.indices(size)
        if step != 1:
            raise ValueError("slices of packed text are contiguous")
        if end <= start:
            return b""
        pieces = []
        if start < packed:
            for number in range(start // BLOCK_BYTES, (min(end, packed) - 1) // BLOCK_BYTES + 1):
                at = number * BLOCK_BYTES
                block = zlib.decompress(self._blocks[number])
                pieces.append(block[max(start - at, 0) : end - at])
        if end > packed:
            pieces.append(tail[max(start - packed, 0) : end - packed])
        return b"".join(pieces)

    def __contains__(self, part: bytes) -> bool:
        """Whether `part` is in the text (unpacked a block at a time)."""
        overlap = max(len(part) - 1, 0)
        return any(
            part in self[start : start + BLOCK_BYTES + overlap]
            for start in range(0, max(len(self), 1), BLOCK_BYTES)
        )

    def __sizeof__(self) -> int:
        """Bytes held: the packed blocks, the unpacked tail and their list."""
        _, tail = self._state
        blocks = sum(sys.getsizeof(block) for block in self._blocks)
        return object.__sizeof__(self) + sys.getsizeof(self._blocks) + blocks + sys.getsizeof(tail)
