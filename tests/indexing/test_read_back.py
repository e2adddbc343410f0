"""Nothing lost: every page IndexRead serves of a response, joined, is the response's text."""

import json
import re
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from indexing.engine.chunker import DocumentFormat, chunk_document
from indexing.engine.chunker.jsondoc import is_minified
from indexing.engine.compressor import ResponseCompressor
from indexing.engine.errors import IndexToolError
from indexing.engine.read import CARRIAGE_RETURN_NOTE, FINAL_NEWLINE_NOTE, format_read
from indexing.engine.store import SessionStore
from tests.engine_helpers import add_text, compress_text
from tests.readback import footer_offset, join_read

THRESHOLD = 256


def read_every_page(store: SessionStore, label: str, limit: int = 200, raw: bool = False) -> str:
    pages, offset = [], None
    while True:
        page = format_read(store, label, offset, limit, raw)
        pages.append(page)
        offset = footer_offset(page)
        if offset is None:
            return join_read(pages)


def compress(text: str) -> tuple[SessionStore, str, str]:
    """(store, label, placeholder) of `text` indexed as a response."""
    store = SessionStore()
    placeholder, stats = compress_text(ResponseCompressor(store), "t", text, threshold=THRESHOLD)
    assert placeholder is not None and stats is not None
    return store, stats.label, placeholder


def line_count(text: str) -> int:
    """Lines split at `\\n` only, a final `\\n` ending the last one (as `wc -l` counts them
    when the text ends with a newline)."""
    return text.count("\n") + (not text.endswith("\n") and bool(text))


line_ends = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])
words = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r"), max_size=30
)
plain_lines = st.lists(
    st.tuples(st.sampled_from(["", "  ", "    ", "\t"]), words, line_ends), min_size=1
)


@st.composite
def any_text(draw: st.DrawFn) -> str:
    """Lines with random indentation, characters and line ends; or JSON laid out anyhow;
    about 10 KB or more, so that its placeholder is mostly smaller."""
    if draw(st.booleans()):
        body = "".join(indent + word + end for indent, word, end in draw(plain_lines))
        text = body * (10_000 // len(body.encode()) + 1)
    else:
        value = draw(
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | words,
                lambda inner: (
                    st.lists(inner, max_size=6) | st.dictionaries(words, inner, max_size=6)
                ),
                max_leaves=40,
            )
        )
        copies = 10_000 // len(json.dumps(value).encode()) + 1
        indent = draw(st.sampled_from([None, 1, 2, 4, "\t"]))
        ascii_only = draw(st.booleans())
        text = json.dumps({"data": [value] * copies}, indent=indent, ensure_ascii=ascii_only)
        if draw(st.booleans()):
            text = text.replace("\n", draw(line_ends))
    return text + draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text(), st.integers(1, 50))
def test_reading_every_page_gives_back_any_text_byte_for_byte(text: str, limit: int) -> None:
    store = SessionStore()
    placeholder, stats = compress_text(ResponseCompressor(store), "t", text, threshold=THRESHOLD)
    assume(stats is not None)  # else passed through as it is
    label = stats.label
    assert read_every_page(store, label, limit, raw=True).encode() == text.encode()
    if "pretty-printed from" not in placeholder.split("\n")[0]:
        assert read_every_page(store, label, limit).encode() == text.encode()
        assert f" {line_count(text)} lines, " in placeholder.split("\n")[0]


def test_crlf_line_ends_stay_in_the_lines_and_a_note_says_so() -> None:
    text = "".join(f"row {n},value {n}\r\n" for n in range(400))
    store, label, _ = compress(text)
    page = format_read(store, label, "2", 3)
    assert page.split("\n")[:4] == [
        CARRIAGE_RETURN_NOTE,
        "2: row 1,value 1\r",
        "3: row 2,value 2\r",
        "4: row 3,value 3\r",
    ]
    assert "\r\n".join(f"row {n},value {n}" for n in (1, 2, 3)) + "\r" in text


def test_a_final_newline_is_said_after_the_last_line_and_its_absence_by_nothing() -> None:
    store = SessionStore()
    add_text(store, "with:1", "one\ntwo\n", tool="t")
    add_text(store, "without:1", "one\ntwo", tool="t")
    assert format_read(store, "with:1") == f"1: one\n2: two\n{FINAL_NEWLINE_NOTE}"
    assert format_read(store, "without:1") == "1: one\n2: two"
    footer = '[1 more line — continue with offset="2"]'
    assert format_read(store, "with:1", "1", 1) == f"1: one\n{footer}"


def test_tabs_nul_and_control_characters_come_back() -> None:
    text = "a\tb\x00c\x01\x1b[0m\x0bd\x0ce\x85f\u2028g\n" * 600
    store, label, _ = compress(text)
    assert read_every_page(store, label, 7) == text


def test_a_lone_surrogate_is_the_one_character_served_as_a_replacement() -> None:
    padding = "\n" * 9000
    store, label, _ = compress('{"a": "\ud800 x"}' + padding)
    assert read_every_page(store, label) == '{"a": "\ufffd x"}' + padding


FORMATTED_JSON = """{
    "name": "api-model",
    "vectors": {
%s
    },
    "owner": {"login": "someone", "id": 7}
}
"""


def formatted_json() -> str:
    rows = ",\n".join(
        f'        "v{n}": {{"id": {n}, "weights": [{", ".join(f"{n * k}.50" for k in range(12))}],'
        f' "label": "vector \\"{n}\\" 1E+3"}}'
        for n in range(300)
    )
    return FORMATTED_JSON % rows


def test_formatted_json_is_served_as_sent_and_its_contents_point_at_its_own_lines() -> None:
    text = formatted_json()
    store, label, placeholder = compress(text)
    assert read_every_page(store, label, 37) == text
    file_lines = text.split("\n")
    assert f" {line_count(text)} lines, " in placeholder.split("\n")[0]
    entries = re.findall(r"- \[L(\d+)\] (\S+)", placeholder)
    assert [name for _, name in entries] == ["name", "vectors", "owner"]
    for line, name in entries:
        assert file_lines[int(line) - 1].lstrip().startswith(f'"{name}"')


@pytest.mark.parametrize("streamed", [False, True])
def test_json_search_hits_cover_the_lines_that_hold_what_was_found(monkeypatch, streamed) -> None:
    if streamed:
        monkeypatch.setattr("indexing.engine.chunker.jsondoc.STREAM_MIN_CHARS", 1000)
    text = formatted_json()
    store, label, _ = compress(text)
    file_lines = text.split("\n")
    for n in (0, 151, 299):
        (hit,) = store.search(f'"v{n}"', source=label, limit=1)
        assert f'"v{n}": {{' in "\n".join(file_lines[hit.start_line - 1 : hit.end_line])
        assert hit.body == "\n".join(file_lines[hit.start_line - 1 : hit.end_line])
        assert f"v{n}" in hit.title


def test_json_chunks_cover_the_text_in_order_within_the_size_bound() -> None:
    text = formatted_json()
    document = chunk_document(text)
    assert document.format is DocumentFormat.JSON and document.raw is None
    starts = [chunk.start_line for chunk in document.chunks]
    assert starts == sorted(starts)
    assert all(len(document.body(chunk).encode()) <= 6000 for chunk in document.chunks)


def test_minified_json_is_served_pretty_printed_and_read_as_sent_with_raw() -> None:
    value = {"items": [{"id": n, "name": f"item {n}"} for n in range(300)]}
    text = json.dumps(value, separators=(",", ":"))
    store, label, placeholder = compress(text)
    first = placeholder.split("\n")[0]
    assert first.endswith(f'indexed as "{label}", pretty-printed from 1 line]')
    assert f'IndexRead(label="{label}", raw=true)' in placeholder
    assert read_every_page(store, label) == json.dumps(value, indent=2)
    raw_page = format_read(store, label, raw=True)
    assert raw_page.startswith("1-1: " + text[:2000] + "\n1-2: ")
    assert read_every_page(store, label, raw=True) == text


def test_large_minified_json_is_kept_packed_and_reads_back_whole() -> None:
    """Read member by member, its pretty text is packed as the writer thread takes it; pages,
    search hits and the text as sent all read back from the packed blocks."""
    value = [
        {"id": n, "name": f"naïve ☃ {n}", "tags": ["a\rb", "x" * (n % 50)]} for n in range(6000)
    ]
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert len(text) > 256 * 1024  # read member by member
    store, label, _ = compress(text)
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    assert read_every_page(store, label) == pretty
    assert read_every_page(store, label, raw=True) == text
    hits = store.search("5999", source=label)
    assert hits and all(hit.body in pretty for hit in hits)
    kept = sys.getsizeof(store.lines(label).text) + sys.getsizeof(store.lines(label, raw=True).text)
    assert kept < len(pretty.encode()) / 2


def test_the_pretty_printing_rule_is_one_line_holding_nine_tenths_beyond_a_part() -> None:
    def minified(text: str) -> bool:
        return chunk_document(text).raw is not None

    line = json.dumps({"k": ["x" * 10] * 300})
    assert len(line) > 2000
    assert minified(line) and minified(line + "\n") and minified("\n" + line + "\n")
    assert not minified(line + "\n" + " " * (len(line) // 5))  # less than 90% of the text
    assert not minified(json.dumps({"k": ["x" * 10] * 100}))  # 1,501 characters
    assert is_minified.__doc__


def test_json_with_duplicate_keys_is_served_as_text_as_sent() -> None:
    text = "{\n" + "".join(f'  "a": {n},\n' for n in range(1000)) + '  "a": 0\n}'
    store, label, _ = compress(text)
    assert store.document(label).format is not DocumentFormat.JSON
    assert read_every_page(store, label) == text


@pytest.mark.parametrize("raw", ["yes", 1, [True]])
def test_raw_must_be_true_or_false(raw: object) -> None:
    store, label, _ = compress("x\n" * 9000)
    with pytest.raises(IndexToolError, match="raw must be true or false"):
        format_read(store, label, raw=raw)
    assert format_read(store, label, raw="true") == format_read(store, label)
