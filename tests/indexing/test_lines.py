"""Lines: a document's lines as one text plus offsets, equal to splitting it on newlines."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.chunker import lines as lines_module
from indexing.chunker.lines import Lines
from indexing.text import sanitize

pieces = st.sampled_from(["a", "b", " ", "\t", "\n", "\r", "\r\n", "é", "\u3000", "😀"])
texts = st.lists(pieces).map(lambda parts: sanitize("".join(parts), keep_crlf=True))


def reference_lines(text: str) -> list[str]:
    """What an editor shows: split on newlines, a final newline ends the last line."""
    lines = sanitize(text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


@settings(max_examples=500)
@given(texts, st.integers(1, 8))
def test_lines_equal_the_text_split_on_newlines_whatever_the_block_size(
    text: str, block: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines_module, "BLOCK_CHARS", block)
        lines = Lines.of(text)
    expected = reference_lines(text)
    assert list(lines) == expected
    assert [lines[index] for index in range(len(lines))] == expected
    assert [lines.length(index) for index in range(len(lines))] == list(map(len, expected))
    assert lines.utf8_size() == sum(len(line.encode()) + 1 for line in expected)
    assert lines.joined(0, len(lines) - 1) == "\n".join(expected)
    joined = Lines.join(expected)
    assert list(joined) == expected
    assert joined.utf8_size() == lines.utf8_size()


@settings(max_examples=300)
@given(texts, st.data())
def test_joined_ranges_and_sizes_match_the_line_list(text: str, data: st.DataObject) -> None:
    lines, expected = Lines.of(text), reference_lines(text)
    assert list(Lines.over(text, text.split("\n")[: len(expected)])) == expected
    if not expected:
        return
    first = data.draw(st.integers(0, len(expected) - 1))
    last = data.draw(st.integers(first, len(expected) - 1))
    assert lines.joined(first, last) == "\n".join(expected[first : last + 1])
    lengths = [lines.length(index) for index in range(first, last + 1)]
    assert lengths == [len(line) for line in expected[first : last + 1]]


def test_a_long_line_is_served_in_parts() -> None:
    lines = Lines.of("short\n" + "x" * 4500 + "y\nlast")
    assert [len(lines.span(2, 2, part)) for part in (1, 2, 3)] == [2000, 2000, 501]
    assert lines.span(2, 2, 3).endswith("y")
    assert lines.span(1, 3) == "short\n" + "x" * 4500 + "y\nlast"


def test_out_of_range_lines_raise_index_error() -> None:
    with pytest.raises(IndexError):
        Lines.of("one\ntwo\n")[2]
    assert Lines.of("one\ntwo\n")[-1] == "two"


def test_crlf_line_ends_are_not_part_of_the_lines() -> None:
    text = "# Title\r\n\r\nbody 😀\r\nlast"
    lines = Lines.of(sanitize(text, keep_crlf=True))
    assert lines.crlf and list(lines) == ["# Title", "", "body 😀", "last"]
    assert lines.span(1, 3) == "# Title\n\nbody 😀"
    assert lines.utf8_size() == len("# Title\n\nbody 😀\nlast\n".encode())


@settings(max_examples=300)
@given(texts, st.data())
def test_compact_lines_read_the_same_in_less_memory(text: str, data: st.DataObject) -> None:
    lines = Lines.of(text + "x" * data.draw(st.sampled_from([0, 4500])))
    compact = lines.compact()
    assert compact.utf8 != lines.text.isascii()
    for same in (compact, compact.expanded()):
        assert list(same) == list(lines)
        assert same.utf8_size() == lines.utf8_size()
        assert [same.length(i) for i in range(len(same))] == list(map(len, lines))
        if not len(lines):
            continue
        first = data.draw(st.integers(1, len(lines)))
        last = data.draw(st.integers(first, len(lines)))
        assert same.span(first, last) == lines.span(first, last)
        part = data.draw(st.integers(1, 4))
        assert same.span(last, last, part) == lines.span(last, last, part)
        skip, count = data.draw(st.integers(0, 5000)), data.draw(st.integers(0, 3000))
        assert same.piece(last - 1, skip, count) == lines.piece(last - 1, skip, count)


def test_a_wide_text_is_kept_as_utf8() -> None:
    lines = Lines.of(sanitize("naïve 😀 line\r\n" * 1000, keep_crlf=True))
    compact = lines.compact()
    assert compact.utf8 and len(compact.text) == lines.utf8_size()
    assert compact[999] == "naïve 😀 line"
