"""Text kept LZ4-packed a block at a time: minified JSON's pretty-printed lines, and its
text as sent beside them.

Minified JSON is served pretty-printed (`jsondoc`), and its text as sent is kept for
`IndexRead(raw=true)`. Kept as bytes, the two took 1.5x the response (a compact array of
records: pretty text 1.2x, and the text as sent packed whole), most of what the store held of
it and of its peak while indexing it. Packed in blocks of `BLOCK_BYTES` with LZ4, JSON keeps
about 0.37 of its size, at about 2 ms a MiB to pack (zlib at its fastest level keeps 0.28
but takes 8.5 ms a MiB, which cost a sixth of minified JSON's indexing speed), and a read
unpacks only the blocks it slices, one to three for an IndexRead page or a search hit.

The pretty text is written unpacked and packed a few blocks behind, by the writer thread
indexing it once it has taken the text of each step it writes (`pack`): the chunking
thread need not pack it, nor the writer unpack it. Only the text not taken yet is held
unpacked, at most `MAX_UNPACKED_BLOCKS` whole blocks: past them, the chunking thread packs
the oldest itself.
"""

from __future__ import annotations

import sys
from typing import overload

import lz4.block

BLOCK_BYTES = 1 << 15
"""Bytes of text per packed block (64 KiB packs 3% smaller, and takes twice as long to
unpack for a slice of one line)."""
MAX_UNPACKED_BLOCKS = 8
"""Written blocks left unpacked, at most, for `pack` (the writer thread) to pack: past
them, `+=` packs the oldest itself (the writer lags behind a large document's chunking by
up to half of it)."""


def _pack(data: bytes | bytearray | memoryview) -> bytes:
    """One block packed (its size stored with it; the GIL released meanwhile)."""
    return lz4.block.compress(data)


class PackedText:
    """UTF-8 text packed in blocks of `BLOCK_BYTES`, read as `Lines` read their `bytes`:
    `len`, slices (`text[start:end]`, as `bytes`), single bytes (`text[-1]`), `isascii`,
    and `in` (which unpacks every block).

    Written by `+=`, unpacked, and packed by `pack`: one thread writes and one packs
    (perhaps another) while others slice what was written before.
    """

    __slots__ = ("_blocks", "_state", "_ascii", "_unpacked", "_to_pack")

    def __init__(self) -> None:
        # Whole blocks, (packed, bytes): only appended to, and replaced once packed.
        self._blocks: list[tuple[bool, bytes | bytearray]] = []
        # (whole blocks, the last block's bytes): replaced as one, so that a reader on
        # another thread always sees the blocks and the tail that follows them.
        self._state: tuple[int, bytearray] = (0, bytearray())
        self._ascii = True
        # The block unpacked last (number, bytes): lines read in turn unpack a block once.
        self._unpacked: tuple[int, bytes] = (-1, b"")
        self._to_pack = 0  # the first block `pack` has not packed

    @classmethod
    def of(cls, data: bytes | bytearray) -> PackedText:
        """`data` packed (its whole blocks; not copied first)."""
        text = cls()
        whole = len(data) - len(data) % BLOCK_BYTES
        with memoryview(data) as view:
            text._blocks = [
                (True, _pack(view[at : at + BLOCK_BYTES])) for at in range(0, whole, BLOCK_BYTES)
            ]
            text._state = (len(text._blocks), bytearray(view[whole:]))
        text._to_pack = len(text._blocks)
        text._ascii = data.isascii()
        return text

    def __iadd__(self, data: bytes | bytearray) -> PackedText:
        """Append `data`, unpacked until `pack` packs it."""
        self._ascii = self._ascii and data.isascii()
        count, tail = self._state
        room = BLOCK_BYTES - len(tail)
        if len(data) < room:
            tail += data  # in place: readers only slice what was there before
            return self
        with memoryview(data) as view:
            tail += view[:room]
            whole = [tail]
            at = room
            while len(view) - at >= BLOCK_BYTES:
                whole.append(bytes(view[at : at + BLOCK_BYTES]))
                at += BLOCK_BYTES
            rest = bytearray(view[at:])
        self._blocks += [(False, block) for block in whole]
        self._state = (count + len(whole), rest)
        if count + len(whole) - self._to_pack > MAX_UNPACKED_BLOCKS:  # `pack` lags behind
            self.pack((count + len(whole) - MAX_UNPACKED_BLOCKS) * BLOCK_BYTES)
        return self

    def pack(self, end: int) -> None:
        """Pack the whole blocks before byte `end` that are not packed yet."""
        stop = min(end // BLOCK_BYTES, self._state[0])
        for number in range(self._to_pack, stop):
            packed, data = self._blocks[number]
            if not packed:  # another thread may have packed it meanwhile
                self._blocks[number] = (True, _pack(data))
        self._to_pack = max(self._to_pack, stop)

    def __len__(self) -> int:
        count, tail = self._state
        return count * BLOCK_BYTES + len(tail)

    def isascii(self) -> bool:
        return self._ascii

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> bytes: ...
    def __getitem__(self, index: int | slice) -> int | bytes:
        count, tail = self._state
        packed = count * BLOCK_BYTES
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
                pieces.append(self._block(number)[max(start - at, 0) : end - at])
        if end > packed:
            pieces.append(tail[max(start - packed, 0) : end - packed])
        return b"".join(pieces)

    def _block(self, number: int) -> bytes | bytearray:
        """Whole block `number`, unpacked."""
        packed, data = self._blocks[number]
        if not packed:
            return data
        unpacked = self._unpacked  # read once: another thread may replace it
        if unpacked[0] != number:
            unpacked = self._unpacked = (number, lz4.block.decompress(data))
        return unpacked[1]

    def __contains__(self, part: bytes) -> bool:
        """Whether `part` is in the text (unpacked a block at a time)."""
        overlap = max(len(part) - 1, 0)
        return any(
            part in self[start : start + BLOCK_BYTES + overlap]
            for start in range(0, max(len(self), 1), BLOCK_BYTES)
        )

    def __sizeof__(self) -> int:
        """Bytes held: the blocks and their list, the tail, the block unpacked last."""
        _, tail = self._state
        blocks = [data for _, data in self._blocks]
        held = [self._blocks, *self._blocks, *blocks, tail, self._unpacked[1]]
        return object.__sizeof__(self) + sum(map(sys.getsizeof, held))
