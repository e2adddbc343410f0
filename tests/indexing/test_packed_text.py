"""PackedText: text kept zlib-packed in blocks reads back as the bytes written."""

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.packed_text import BLOCK_BYTES, MAX_UNPACKED_BLOCKS, PackedText

PATTERN = bytes(range(251)) * (4 * BLOCK_BYTES // 251)
sizes = st.sampled_from([0, 1, 7, BLOCK_BYTES - 1, BLOCK_BYTES, BLOCK_BYTES + 1, 3 * BLOCK_BYTES])


@settings(deadline=None)  # up to 12 pieces of 96 KiB, packed and sliced
@given(
    pieces=st.lists(st.tuples(sizes, st.booleans()), max_size=12),
    cuts=st.lists(st.tuples(st.integers(-10, 12 * BLOCK_BYTES), st.integers(0, 4 * BLOCK_BYTES))),
)
def test_written_in_pieces_and_packed_anywhere_it_slices_as_the_bytes(
    pieces: list[tuple[int, bool]], cuts: list[tuple[int, int]]
) -> None:
    data, text = bytearray(), PackedText()
    for number, (size, pack) in enumerate(pieces):
        piece = PATTERN[number : number + size] + "é".encode() * (size % 2)
        data += piece
        text += piece
        if pack:
            text.pack(len(data) // 2)
    assert len(text) == len(data)
    assert text.isascii() == data.isascii()
    for start, length in cuts:
        assert text[start : start + length] == data[start : start + length]
    if data:
        assert (text[0], text[-1]) == (data[0], data[-1])
        assert bytes(data[len(data) // 2 : len(data) // 2 + 3]) in text
    assert PackedText.of(data)[:] == data


def test_whole_blocks_are_packed_once_too_many_wait() -> None:
    text = PackedText()
    block = b"0123456789abcdef" * (BLOCK_BYTES // 16)
    for _ in range(3 * MAX_UNPACKED_BLOCKS):
        text += block
    assert len(text) == 3 * MAX_UNPACKED_BLOCKS * BLOCK_BYTES
    assert sys.getsizeof(text) < (MAX_UNPACKED_BLOCKS + 2) * BLOCK_BYTES  # the rest packed
    assert text[BLOCK_BYTES - 3 : BLOCK_BYTES + 3] == b"def012"


def test_packed_lines_read_as_the_lines_of_their_text() -> None:
    data = "".join(f"line {n} naïve\r\n" for n in range(20_000)).encode()
    packed, plain = Lines.packed(data), Lines.of(data)
    assert type(packed.text) is PackedText and len(packed.text) == len(data)
    assert (len(packed), packed.ascii, packed.carriage_return) == (len(plain), False, True)
    assert list(packed) == list(plain)
    assert packed.piece(12_345, 2, 5) == plain.piece(12_345, 2, 5)
    assert packed.ends_with_newline() and not Lines.packed(data[:-2]).ends_with_newline()
