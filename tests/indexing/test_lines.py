"""Lines: a document's UTF-8 text plus offsets, equal to splitting the text on newlines."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine import text as text_module
from indexing.engine.chunker import lines as lines_module
from indexing.engine.chunker.lines import Lines
from indexing.engine.text import encode_document, utf8_size

pieces = st.sampled_from(
    ["a", "b", " ", "\t", "\n", "\r", "\r\n", "é", "\u3000", "😀", "\x00", "\ud800"]
)
texts = st.lists(pieces).map("".join)


def as_served(text: str) -> str:
    """The text exactly, but for a lone surrogate (no UTF-8 form): U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def reference_lines(text: str) -> list[str]:
    """What `wc -l` counts: split on `\\n` only, a final newline ends the last line."""
    lines = as_served(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@settings(max_examples=500)
@given(texts, st.integers(1, 8), st.integers(1, 8))
def test_lines_equal_the_text_split_on_newlines_whatever_the_block_sizes(
    text: str, encode_block: int, split_block: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_module, "UTF8_BLOCK_CHARS", encode_block)
        patch.setattr(lines_module, "BLOCK_BYTES", split_block)
        encoded = encode_document(text)
        lines = Lines.of(encoded.data)
    expected = reference_lines(text)
    assert encoded.data == as_served(text).encode()
    assert encoded.source_bytes == utf8_size(text)
    assert list(lines) == expected
    assert [lines[index] for index in range(len(lines))] == expected
    assert [lines.length(index) for index in range(len(lines))] == list(map(len, expected))
    assert lines.utf8_size() == sum(len(line.encode()) + 1 for line in expected)
    assert lines.joined(0, len(lines) - 1) == "\n".join(expected)


@settings(max_examples=300)
@given(texts, st.data())
def test_ranges_parts_and_pieces_match_the_line_list(text: str, data: st.DataObject) -> None:
    long_line = data.draw(st.sampled_from(["", "x" * 4500, "é" * 4500]))
    text += long_line
    lines, expected = Lines.of(encode_document(text).data), reference_lines(text)
    if not expected:
        return
    first = data.draw(st.integers(0, len(expected) - 1))
    last = data.draw(st.integers(first, len(expected) - 1))
    assert lines.joined(first, last) == "\n".join(expected[first : last + 1])
    assert lines.span(first + 1, last + 1) == "\n".join(expected[first : last + 1])
    assert lines.size(first, last) == sum(
        len(line.encode()) + 1 for line in expected[first : last + 1]
    )
    line = expected[last]
    part = data.draw(st.integers(1, 4))
    assert lines.span(last + 1, last + 1, part) == line[(part - 1) * 2000 : part * 2000]
    skip, count = data.draw(st.integers(0, 5000)), data.draw(st.integers(0, 3000))
    assert lines.piece(last, skip, count) == (len(line), line[skip : skip + count])


def test_a_long_line_is_served_in_parts() -> None:
    lines = Lines.of(("short\n" + "x" * 4500 + "y\nlast").encode())
    assert [len(lines.span(2, 2, part)) for part in (1, 2, 3)] == [2000, 2000, 501]
    assert lines.span(2, 2, 3).endswith("y")
    assert lines.span(1, 3) == "short\n" + "x" * 4500 + "y\nlast"


def test_out_of_range_lines_raise_index_error() -> None:
    with pytest.raises(IndexError):
        Lines.of(b"one\ntwo\n")[2]
    assert Lines.of(b"one\ntwo\n")[-1] == "two"


def test_lines_are_split_at_newlines_only_and_keep_every_other_character() -> None:
    lines = Lines.of(encode_document("# Title\r\n\r\nbody 😀\rnext\x00\ud800\r\nlast").data)
    assert list(lines) == ["# Title\r", "\r", "body 😀\rnext\x00\ufffd\r", "last"]
    assert lines.span(1, 2) == "# Title\r\n\r"
    assert lines.utf8_size() == len("# Title\r\n\r\nbody 😀\rnext\x00\ufffd\r\nlast\n".encode())


def test_a_wide_text_is_kept_as_utf8() -> None:
    text = "naïve 😀 line\r\n" * 1000
    lines = Lines.of(encode_document(text).data)
    assert len(lines.text) == lines.utf8_size() == len("naïve 😀 line\r\n".encode()) * 1000
    assert not lines.ascii and lines[999] == "naïve 😀 line\r"


@settings(max_examples=300)
@given(texts, st.lists(st.integers(0, 12), max_size=8), st.integers(1, 8))
def test_lines_written_piece_by_piece_equal_the_lines_of_the_whole_text(
    text: str, cuts: list[int], block: int
) -> None:
    data = encode_document(text).data
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines_module, "BLOCK_BYTES", block)
        lines, written = Lines.writing(), 0
        for cut in cuts:
            lines.write(bytes(data[written : written + cut]))
            written += cut
            assert not lines.complete
            assert len(lines) <= data.count(b"\n", 0, written)  # only lines already ended
        lines.write(bytes(data[written:]))
        lines.finish()
    whole = Lines.of(data)
    assert lines.complete
    assert (lines.text, lines.starts, lines.ascii) == (whole.text, whole.starts, whole.ascii)


def test_lines_being_written_are_indexed_when_a_length_is_asked_for() -> None:
    lines = Lines.writing()
    lines.write("first\nsecond é\n".encode())
    assert len(lines) == 0  # less than a block waits
    assert lines.length(1) == len("second é")
    assert list(lines) == ["first", "second é"]
    lines.write(b"last, no newline")
    lines.finish()
    assert list(lines) == ["first", "second é", "last, no newline"] and not lines.ascii
