"""Format-aware chunking: line ranges, titles, outlines, and size bounds."""

import json
import re
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexing.engine.chunker import (
    CONTENTS_BYTES,
    Chunk,
    ChunkList,
    DocumentFormat,
    Lines,
    NotStreamable,
    chunk_document,
    json_chunker,
    jsondoc,
    markdown,
    start_chunking,
)
from indexing.engine.chunker.json_members import Members, read_members
from indexing.engine.chunker.plaintext import section_titles
from indexing.engine.chunker.sizing import MAX_CHUNK_CHARS, TARGET_CHUNK_CHARS
from indexing.engine.placeholder import render_contents
from indexing.engine.store import SessionStore
from indexing.engine.text import LINE_PART_CHARS, part_count
from tests.engine_helpers import add_text, detect_format

MARKDOWN = """\
Intro before any heading.

# Guide

Welcome.

## Install

```bash
# this is a shell comment, not a heading
pip install thing
```

### From source

Clone it.

# API
Calls.
"""


def test_markdown_chunks_are_titled_by_heading_breadcrumbs() -> None:
    document = chunk_document(MARKDOWN)
    assert document.format is DocumentFormat.MARKDOWN
    titles = [chunk.title for chunk in document.chunks]
    assert titles == [
        "Preamble",
        "Guide",
        "Guide > Install",
        "Guide > Install > From source",
        "API",
    ]


def test_markdown_chunks_keep_their_line_ranges() -> None:
    document = chunk_document(MARKDOWN)
    lines = MARKDOWN.splitlines()
    for chunk in document.chunks:
        assert document.body(chunk) == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])


def test_a_heading_inside_a_code_fence_is_not_a_heading() -> None:
    document = chunk_document(MARKDOWN)
    assert [entry.title for entry in document.outline] == ["Guide", "Install", "From source", "API"]
    install = next(chunk for chunk in document.chunks if chunk.title == "Guide > Install")
    assert "# this is a shell comment, not a heading" in document.body(install)


def test_markdown_outline_records_heading_lines_and_depths() -> None:
    outline = chunk_document(MARKDOWN).outline
    assert [(entry.line, entry.depth) for entry in outline] == [(3, 0), (7, 1), (14, 2), (18, 0)]


BIG_SECTION = "# Big\n\n" + "A long paragraph of prose about nothing in particular.\n" * 400


def _section(heading: str, words: str, lines: int = 3) -> str:
    return f"{heading}\n\n" + f"{words} and more text.\n" * lines + "\n"


def test_small_sections_of_a_big_document_share_a_chunk_titled_by_every_heading() -> None:
    small = (
        _section("## Alpha", "alpha") + _section("### Beta", "beta") + _section("## Gamma", "gamma")
    )
    text = (
        BIG_SECTION
        + "\n"
        + small
        + _section("## Large", "large", 60)
        + _section("## Delta", "delta")
    )
    document = chunk_document(text)
    assert len(text.encode()) >= markdown.MERGE_MIN_BYTES
    lines = text.splitlines()
    merged = [chunk for chunk in document.chunks if "Alpha" in chunk.title]
    assert merged == [
        Chunk(
            "Big > Alpha; Beta; Gamma",
            lines.index("## Alpha") + 1,
            lines.index("gamma and more text.") + 3,
        )
    ]
    body = document.body(merged[0])
    assert (
        body.startswith("## Alpha") and "### Beta" in body and body.endswith("gamma and more text.")
    )
    # A section over SMALL_SECTION_BYTES keeps its own chunk; the next small one starts a run.
    titles = [chunk.title for chunk in document.chunks]
    assert titles[-2:] == ["Big > Large", "Big > Delta"]
    assert [entry.title for entry in document.outline] == [
        "Big", "Alpha", "Beta", "Gamma", "Large", "Delta"
    ]  # fmt: skip


def test_a_run_of_small_sections_stops_at_its_parents_sibling_and_at_the_chunk_size() -> None:
    deep = _section("### One", "one") + _section("### Two", "two") + _section("## Up", "up")
    parts = "".join(_section(f"### Part {n}", "part", 20) for n in range(6))  # ~430 chars each
    document = chunk_document(BIG_SECTION + "\n" + _section("## Parent", "big", 60) + deep + parts)
    # ## Parent is too big to merge; ### One starts a run that ## Up (a level above) ends;
    # ## Up and four parts fit in TARGET_CHUNK_CHARS, not five.
    assert [chunk.title for chunk in document.chunks[-4:]] == [
        "Big > Parent",
        "Big > Parent > One; Two",
        "Big > Up; Part 0; Part 1; Part 2; Part 3",
        "Big > Up > Part 4; Part 5",
    ]
    assert all(len(document.body(chunk)) <= TARGET_CHUNK_CHARS for chunk in document.chunks[-3:])


def test_at_most_max_merged_sections_share_a_chunk() -> None:
    tiny = "".join(f"## Tiny {n}\n\nA line.\n\n" for n in range(10))
    document = chunk_document(BIG_SECTION + "\n" + tiny)
    assert markdown.MAX_MERGED_SECTIONS == 8
    assert [chunk.title for chunk in document.chunks[-2:]] == [
        "Big > Tiny 0; " + "; ".join(f"Tiny {n}" for n in range(1, 8)),
        "Big > Tiny 8; Tiny 9",
    ]


def test_a_small_document_keeps_one_chunk_per_section() -> None:
    text = BIG_SECTION[:2000] + "\n" + _section("## Alpha", "alpha") + _section("## Beta", "beta")
    assert len(text.encode()) < markdown.MERGE_MIN_BYTES
    titles = [chunk.title for chunk in chunk_document(text).chunks]
    assert titles[-2:] == ["Big > Alpha", "Big > Beta"]


def _unmerged(text: str):
    with mock.patch.object(markdown, "MERGE_MIN_BYTES", float("inf")):
        return chunk_document(text, DocumentFormat.MARKDOWN)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(["## A", "### B", "# C", "text", "", "```", "x" * 300]), max_size=120)
)
def test_merged_chunks_are_runs_of_the_unmerged_chunks(pieces: list[str]) -> None:
    text = BIG_SECTION + "\n".join(pieces)
    merged, unmerged = chunk_document(text, DocumentFormat.MARKDOWN), _unmerged(text)
    assert merged.outline == unmerged.outline
    rest = list(unmerged.chunks)
    for chunk in merged.chunks:
        run = [rest.pop(0)]
        while run[-1].end_line < chunk.end_line:
            run.append(rest.pop(0))
        # The same lines, from the first chunk's start to the last one's end; every heading.
        assert (chunk.start_line, chunk.end_line) == (run[0].start_line, run[-1].end_line)
        assert chunk.title == "; ".join(
            [run[0].title, *(c.title.split(" > ")[-1] for c in run[1:])]
        )
        assert len(run) == 1 or len(merged.body(chunk)) <= TARGET_CHUNK_CHARS
    assert rest == []


def test_a_fenced_code_block_that_fits_a_chunk_is_kept_whole() -> None:
    code = "\n".join(f"    value_{i} = compute({i})" for i in range(80))  # ~2.3 KB
    text = "# Title\n\n" + "Some prose.\n" * 60 + "\n```python\n" + code + "\n```\n\nAfter.\n"
    document = chunk_document(text)
    fence = "```python\n" + code + "\n```"
    assert any(fence in document.body(chunk) for chunk in document.chunks)


def test_a_huge_code_block_is_split_so_no_chunk_is_giant() -> None:
    code = "\n".join(f"line_{i} = {i}" for i in range(5000))
    document = chunk_document("# Big\n\n```\n" + code + "\n```\n")
    assert len(document.chunks) > 1
    assert all(len(document.body(chunk)) <= MAX_CHUNK_CHARS for chunk in document.chunks)


def test_setext_headings_are_headings() -> None:
    document = chunk_document("Title\n=====\n\ntext\n\nSub\n---\nmore\n")
    assert [chunk.title for chunk in document.chunks] == ["Title", "Title > Sub"]


def test_minified_json_is_pretty_printed_once_and_served_as_those_lines() -> None:
    value = {"b": [1, 2.5, None, True], "a": {"x": "é\u2028" * 1000}, "e": {}, "f": []}
    text = json.dumps(value, separators=(",", ":"))
    document = chunk_document(text)
    assert document.format is DocumentFormat.JSON
    assert list(document.lines) == json.dumps(value, indent=2, ensure_ascii=False).split("\n")
    assert document.raw is not None and bytes(document.raw.text) == text.encode()


def test_json_that_is_not_minified_is_served_as_sent() -> None:
    text = '{"b": [1, 2.50, null, true],\r\n "a": {"x": "\\u00e9"}, "e": {}, "f": [ ]}'
    document = chunk_document(text)
    assert document.format is DocumentFormat.JSON and document.raw is None
    assert bytes(document.lines.text) == text.encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


def _same_line_but_for_float_spelling(ours: str, reference: str) -> bool:
    """Equal lines, or the same key and the same number spelt two ways (`1e-05`, `0.00001`)."""
    if ours == reference:
        return True
    ours_key, _, ours_value = ours.rstrip(",").rpartition(" ")
    key, _, value = reference.rstrip(",").rpartition(" ")
    return (
        ours_key == key
        and ours.endswith(",") == reference.endswith(",")
        and (float(ours_value) == float(value))
    )


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(), json_values) | st.lists(json_values))
def test_json_lines_are_the_text_or_minified_json_dumps_with_indent_2(value: object) -> None:
    text = json.dumps(value)
    document = chunk_document(text)
    if document.raw is None:  # not minified: served as sent
        assert list(document.lines) == [text]
    else:  # but for float spelling
        lines = json.dumps(value, indent=2, ensure_ascii=False).split("\n")
        assert len(document.lines) == len(lines)
        assert all(map(_same_line_but_for_float_spelling, document.lines, lines))
    for chunk in document.chunks:
        if chunk.part is None:
            served = list(document.lines)[chunk.start_line - 1 : chunk.end_line]
            assert document.body(chunk) == "\n".join(served)
        else:  # one long line's parts, exactly as IndexRead numbers them
            assert chunk.start_line == chunk.end_line
            assert chunk.part <= part_count(document.lines.length(chunk.start_line - 1))


def test_json_numbers_orjson_cannot_carry_are_written_by_the_standard_library() -> None:
    text = '{"big": 123456789012345678901234567890, "nan": NaN, "inf": [Infinity, -1.5e-7]'
    text += ', "pad": "' + "x" * 2000 + '"}'  # minified: served pretty-printed
    document = chunk_document(text)
    assert document.format is DocumentFormat.JSON
    assert list(document.lines) == json.dumps(json.loads(text), indent=2).split("\n")


def test_an_escaped_lone_surrogate_in_json_is_served_as_a_replacement_character() -> None:
    store = SessionStore()
    add_text(
        store, "api:1", '{"a": "\\ud800 x", "b": [' + ",".join(["1"] * 3000) + "]}", tool="api"
    )
    assert store.read_lines("api:1", 2, 2, max_chars=100)[0].text == '  "a": "\ufffd x",'


def test_a_long_json_string_is_chunked_in_the_parts_of_its_line_comma_included() -> None:
    value = {"a": "x" * 3991, "b": 1}  # `  "a": "xxx…",` is 4,001 characters: 3 parts
    document = chunk_document(json.dumps(value))
    parts = [chunk for chunk in document.chunks if chunk.part is not None]
    assert document.lines.length(1) == 4001
    assert [(chunk.start_line, chunk.part, chunk.title) for chunk in parts] == [
        (2, 1, "$.a"),
        (2, 2, "$.a"),
        (2, 3, "$.a"),
    ]


def test_json_array_items_are_titled_by_their_identity_field() -> None:
    items = [{"id": i, "name": f"repo-{i}", "description": "d" * 2500} for i in range(3)]
    chunks = chunk_document(json.dumps({"repositories": items})).chunks
    titles = [chunk.title for chunk in chunks]
    assert "$.repositories[1] (repo-1 (id=1))" in titles


def test_small_json_array_items_are_batched_and_named() -> None:
    items = [{"id": i, "title": f"Issue {i}", "body": "text " * 40} for i in range(40)]
    document = chunk_document(json.dumps({"issues": items, "total": 40}))
    batches = [chunk for chunk in document.chunks if chunk.title.startswith("$.issues: ")]
    assert 1 < len(batches) < 40
    assert "[0] Issue 0 (id=0)" in batches[0].title
    assert all(len(document.body(chunk)) <= MAX_CHUNK_CHARS for chunk in document.chunks)


def test_json_outline_lists_top_level_keys_first() -> None:
    text = json.dumps({"data": {"items": [1]}, "meta": {"page": 1}}, indent=2)
    document = chunk_document(text)
    top = [(entry.line, entry.title) for entry in document.outline if entry.depth == 0]
    assert top == [(2, "data"), (7, "meta")]


def test_titles_with_any_characters_survive_chunking_intact() -> None:
    keys = ["nul\u0000key", "", "é😀", "x" * 300]
    document = chunk_document(json.dumps({key: {"v": "w" * 4000} for key in keys}))
    assert [entry.title for entry in document.outline if entry.depth == 0] == [
        "nul\u0000key",
        "",
        "é😀",
        "x" * 119 + "…",
    ]
    titles = {chunk.title for chunk in document.chunks}
    assert {'$["nul\\u0000key"].v', '$[""].v', '$["é😀"].v'} <= titles


def test_code_is_chunked_by_top_level_definition_with_its_decorators() -> None:
    source = (
        "import os\n\n\n# Helper for things.\n@cache\ndef helper(x):\n    return x\n\n\n"
        "class Service:\n    def run(self):\n        pass\n"
    )
    document = chunk_document(source)
    assert document.format is DocumentFormat.CODE
    assert [(c.title, c.start_line, c.end_line) for c in document.chunks] == [
        ("(module header)", 1, 1),
        ("def helper(x)", 4, 7),
        ("class Service", 10, 12),
    ]
    assert [(entry.line, entry.title) for entry in document.outline] == [
        (6, "def helper(x)"),
        (10, "class Service"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', DocumentFormat.JSON),
        ("[1, 2]", DocumentFormat.JSON),
        ("# Title\n\nText.\n", DocumentFormat.MARKDOWN),
        ("package main\n\nfunc main() {\n\tfmt.Println(1)\n}\n", DocumentFormat.CODE),
        ("use std::io;\n\npub fn main() {\n    let x = 1;\n}\n", DocumentFormat.CODE),
        ("export function f(a) {\n  return a;\n}\n", DocumentFormat.CODE),
        ("# comment\nimport os\n\ndef f():\n    pass\n", DocumentFormat.CODE),
        ("2024-01-01 INFO started\n2024-01-01 WARN slow\n", DocumentFormat.TEXT),
        ('"just a string"', DocumentFormat.TEXT),
        ("{not json", DocumentFormat.TEXT),
    ],
)
def test_detect_format_tells_formats_apart(text: str, expected: DocumentFormat) -> None:
    assert detect_format(text) is expected


def _detected_line_by_line(lines: list[str]) -> DocumentFormat:
    """The detection rules applied to each line in turn (what the regex scans must match)."""
    nonblank = [line for line in lines if line.strip()]
    fences = sum(1 for line in lines if re.match(r" {0,3}(?:```|~~~)", line))
    headings = any(re.match(r" {0,3}#{1,6}[ \t]+\S", line) for line in lines) or any(
        above.strip() and re.match(r" {0,3}(?:={3,}|-{3,})[ \t]*$", line)
        for above, line in zip(lines, lines[1:], strict=False)
    )
    definition = any(re.match(r"def |class |func |fn |function ", line) for line in lines)
    code_shaped = sum(
        1
        for line in nonblank
        if re.match(r"\s|import\s|from\s+\S+\s+import\s|package\s|use\s|#include|@|//", line)
        or line.rstrip().endswith((";", "{", "}", "(", ")", "[", "]", ":", ","))
    )
    if definition and not fences and code_shaped * 2 >= len(nonblank):
        return DocumentFormat.CODE
    if headings or fences >= 2:
        return DocumentFormat.MARKDOWN
    return DocumentFormat.TEXT


detection_lines = st.sampled_from(
    ["# Title", "#nospace", "   ## deep", "    # indented", "```", "~~~ py", "===", "---",
     "Heading", "", "  ", "def f(x):", "class A:", "func main() {", "fn run()", "function g()",
     "    return 1", "import os", "from a import b", "use std::io;", "#include <x>", "@dec",
     "// note", "}", "call(a,", "plain words", "- item", "x = 1;", "\tindented"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(detection_lines, min_size=1, max_size=30))
def test_format_detection_scans_agree_with_the_rules_applied_line_by_line(
    lines: list[str],
) -> None:
    assert detect_format("\n".join(lines)) is _detected_line_by_line(lines)


def test_log_lines_are_cut_into_overlapping_windows() -> None:
    log = "\n".join(f"2024-01-01T00:00:{i % 60:02d} INFO request {i} served" for i in range(500))
    document = chunk_document(log)
    chunks = document.chunks
    assert len(chunks) > 5
    assert all(len(document.body(chunk)) <= MAX_CHUNK_CHARS for chunk in chunks)
    assert chunks[1].start_line <= chunks[0].end_line  # windows overlap
    assert chunks[-1].end_line == 500


def test_plain_text_paragraphs_become_chunks_titled_by_their_first_line() -> None:
    text = "First paragraph here.\nStill first.\n\nSecond paragraph.\n"
    chunks = chunk_document(text).chunks
    assert chunks[0].title == "First paragraph here."
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 4)
    assert chunk_document(text).outline == []


def test_a_huge_single_line_is_split_into_read_sized_parts() -> None:
    document = chunk_document("x" * (LINE_PART_CHARS * 3 + 5))
    parts = [(c.start_line, c.end_line, c.part, len(document.body(c))) for c in document.chunks]
    assert parts == [
        (1, 1, 1, LINE_PART_CHARS),
        (1, 1, 2, LINE_PART_CHARS),
        (1, 1, 3, LINE_PART_CHARS),
        (1, 1, 4, 5),
    ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(["# H", "## H2", "```", "~~~", "", "def f():", "text", "{", "x" * 3500]),
        max_size=60,
    )
)
def test_no_chunk_is_giant_and_every_range_is_inside_the_document(pieces: list[str]) -> None:
    document = chunk_document("\n".join(pieces))
    for chunk in document.chunks:
        assert len(document.body(chunk)) <= MAX_CHUNK_CHARS
        assert 1 <= chunk.start_line <= chunk.end_line <= len(document.lines)


MAN_PAGE = """\
TOOL(1)                     General Commands Manual                    TOOL(1)

NAME
       tool - does things

DESCRIPTION
       Tool reads its input and writes the result.

EXPANSION
       Expansion happens in several steps.

   Parameter Expansion
       A dollar sign introduces parameter expansion.

   Brace Expansion
       Braces generate strings.
"""


def test_man_page_chunks_are_titled_by_section_and_subsection() -> None:
    assert chunk_document(MAN_PAGE).format is DocumentFormat.TEXT
    assert [title for _, title in section_titles(Lines.of(MAN_PAGE.encode()))] == [
        "NAME",
        "DESCRIPTION",
        "EXPANSION",
        "EXPANSION > Parameter Expansion",
        "EXPANSION > Brace Expansion",
    ]
    long_page = MAN_PAGE.replace("Braces generate strings.", "Braces generate strings.\n" * 400)
    titles = {chunk.title for chunk in chunk_document(long_page).chunks}
    assert "EXPANSION > Brace Expansion" in titles


def test_logs_keep_first_line_titles_even_with_one_all_caps_line() -> None:
    log = "STARTUP\n" + "\n".join(f"2024-01-01 INFO request {i} served" for i in range(300))
    chunks = chunk_document(log).chunks
    assert chunks[-1].title.startswith("2024-01-01 INFO request")


markdown_lines = st.sampled_from(
    ["# H", "## Sub ##", "#", "   ### deep", "    # indented code", "Title", "===", "---",
     "```", "```py", "~~~", "````", "``` `inline`", "", "   ", "text", "- item", "x" * 2500]
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(markdown_lines, max_size=80), st.sampled_from(["\n", "\r\n"]))
def test_markdown_chunks_cover_valid_ranges_within_the_size_bound(
    pieces: list[str], newline: str
) -> None:
    document = chunk_document(newline.join(pieces), DocumentFormat.MARKDOWN)
    fences = _fence_spans(pieces)
    for chunk in document.chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(document.lines)
        if chunk.part is None and len(document.body(chunk)) > MAX_CHUNK_CHARS:
            # Only a fence kept whole may exceed the bound: the chunk is inside one.
            assert any(s <= chunk.start_line and chunk.end_line <= e for s, e in fences)


def _fence_spans(pieces: list[str]) -> list[tuple[int, int]]:
    """1-based line ranges that could belong to one fenced block (a loose upper bound)."""
    openings = [
        n for n, line in enumerate(pieces, 1) if line.lstrip(" ").startswith(("```", "~~~"))
    ]
    return [(start, len(pieces)) for start in openings]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(["# Inside", "## Also inside", "code", "", "Text", "---"]), max_size=20
    )
)
def test_headings_inside_a_fence_are_never_headings(inside: list[str]) -> None:
    text = "\n".join(["# Outside", "", "```", *inside, "```", "", "## After"])
    outline = chunk_document(text).outline
    assert [(entry.line, entry.title) for entry in outline] == [
        (1, "Outside"),
        (len(inside) + 6, "After"),
    ]


@pytest.mark.parametrize(
    "markdown", [MARKDOWN, "Title\n=====\n\ntext\n\nSub\n---\nmore\n\n#\n\n## Last ##\n"]
)
def test_crlf_markdown_is_chunked_like_the_same_text_with_lf(markdown: str) -> None:
    crlf = chunk_document(markdown.replace("\n", "\r\n"))
    lf = chunk_document(markdown)
    assert crlf.format is lf.format is DocumentFormat.MARKDOWN
    assert crlf.chunks == lf.chunks
    assert crlf.outline == lf.outline


def test_atx_heading_text_drops_closing_hashes_like_commonmark() -> None:
    text = "# Title #\n\n## Tabs\t##  \n\n### C# ###\n\n#### #\n\n# a#\n"
    assert [entry.title for entry in chunk_document(text).outline] == [
        "Title",
        "Tabs",
        "C#",
        "#",
        "a#",
    ]


def test_code_definitions_are_found_on_any_line_but_not_indented_ones() -> None:
    source = "def first():\n    def inner():\n        pass\n\nclass Second:\n    x = 1\n"
    document = chunk_document(source, DocumentFormat.CODE)
    assert [(entry.line, entry.title) for entry in document.outline] == [
        (1, "def first()"),
        (5, "class Second"),
    ]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["log line", "", "  ", "y" * 900, "z" * 4100]), max_size=40))
def test_text_windows_and_parts_stay_within_the_bound(pieces: list[str]) -> None:
    document = chunk_document("\n".join(pieces), DocumentFormat.TEXT)
    for chunk in document.chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(document.lines)
        assert len(document.body(chunk)) <= MAX_CHUNK_CHARS
        assert document.body(chunk).strip()  # no chunk of blank lines only


def _chunked_json(text: str, stream_min_chars: int) -> tuple:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsondoc, "STREAM_MIN_CHARS", stream_min_chars)
        document = chunk_document(text)
    return document.format, list(document.lines), document.chunks, document.outline


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(), json_values) | st.lists(json_values))
def test_a_json_document_read_member_by_member_is_chunked_as_when_read_whole(
    value: object,
) -> None:
    text = json.dumps(value, indent=(None, 2)[len(str(value)) % 2])
    assert _chunked_json(text, 0) == _chunked_json(text, 2**62)


small_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
)
records = st.lists(
    st.dictionaries(
        st.sampled_from(["id", "name", "score", "tags", "owner", "é", "x" * 30]),
        small_values,
        min_size=1,
        max_size=6,
    ),
    min_size=30,
    max_size=120,
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(records, st.booleans())
def test_a_json_outline_level_contents_cannot_show_is_dropped_and_nothing_else_changes(
    items: list[dict], wrapped: bool
) -> None:
    """Past the entries Contents can show, records are measured whole, not member by member:
    the same chunks, and the same Contents."""
    text = json.dumps({"total": len(items), "items": items} if wrapped else items)
    document = chunk_document(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_chunker, "CONTENTS_BYTES", 2**62)  # every level could be shown
        every_level = chunk_document(text)
    assert document.chunks == every_level.chunks
    assert render_contents(document.outline) == render_contents(every_level.outline)
    deepest = [entry for entry in every_level.outline if entry.depth == 1]
    if len(deepest) * len("  - [L1] \n") > CONTENTS_BYTES:
        assert all(entry.depth == 0 for entry in document.outline)
    else:
        assert document.outline == every_level.outline


item_values = st.one_of(
    small_values,
    st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=2, max_size=2),
    st.dictionaries(st.sampled_from(["id", "name", "x"]), small_values, max_size=3),
    st.text(min_size=2900, max_size=3100),  # about a chunk: over it, it is walked instead
    st.lists(st.integers(), min_size=300, max_size=400),  # longer than a chunk
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(item_values, min_size=1, max_size=160), min_size=1, max_size=4))
def test_long_lists_batched_from_their_own_text_are_chunked_as_when_walked(
    lists: list[list],
) -> None:
    """Deep lists of many items are measured from their text, not item by item: the same
    chunks (titles and lines) as walking every item."""
    text = json.dumps({"series": [{"id": n, "values": items} for n, items in enumerate(lists)]})
    batched = chunk_document(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_chunker, "_MIN_ITEMS_BATCHED", 2**62)
        walked = chunk_document(text)
    assert batched.chunks == walked.chunks
    assert batched.outline == walked.outline


def test_a_long_list_of_pairs_is_batched_with_item_titles(monkeypatch) -> None:
    batched = []
    batch_items = json_chunker.JsonChunker._batch_items

    def spied(*args):
        result = batch_items(*args)
        batched.append(result is not None)
        return result

    monkeypatch.setattr(json_chunker.JsonChunker, "_batch_items", spied)
    pairs = [[1700000000 + 15 * n, f"{n / 2}"] for n in range(400)]
    document = chunk_document(json.dumps({"metric": "load", "data": {"values": pairs}}))
    assert batched == [True]
    chunks = [chunk for chunk in document.chunks if chunk.title.startswith("$.data.values")]
    assert chunks[0].title.startswith("$.data.values: [0], [1], [2], ")
    assert chunks[0].title.endswith("…") and len(chunks[0].title) == 200
    for chunk in chunks:
        body = document.body(chunk)
        assert len(body) <= TARGET_CHUNK_CHARS
        assert body.lstrip().startswith("[") and body.rstrip().rstrip(",").endswith("]")
    assert document.body(chunks[-1]).endswith('"199.5"\n      ]')


def test_a_long_list_of_records_keeps_only_its_top_level_outline() -> None:
    items = [{"id": number, "name": f"item {number}", "size": number * 3} for number in range(500)]
    document = chunk_document(json.dumps(items))
    assert [entry.title for entry in document.outline[:2]] == [
        "[0] item 0 (id=0)",
        "[1] item 1 (id=1)",
    ]
    assert {entry.depth for entry in document.outline} == {0}
    assert len(document.outline) == 500


@pytest.mark.parametrize(
    "text",
    [
        '[1, NaN, {"a": Infinity}]',  # only the standard library writes these
        '{"big": 123456789012345678901234567890, "n": 1}',
        "[1e400, 2]",  # a double overflows to infinity
        '{"a": [1, {"b": -2.5e+0400}]}',
        "[" + "9" * 400 + ".5, null]",
        '{"a": 1, "b": 2, "a": 3}',  # a whole parse keeps the last "a", where the first was
        '{"n": 1, "items": {"x": 1, "x": 2}}',  # the same, one level down
        '{"a": "\\ud800", "b": [1]}',  # a lone surrogate
        "[1, 2] [3]",  # data after the document
        "[1, 2,]",
        '{"a" 1}',
        "[" * 300 + "]" * 300,  # deeper than orjson goes
        "[]",
    ],
)
def test_what_cannot_be_read_member_by_member_is_read_whole(text: str) -> None:
    with pytest.raises(NotStreamable):
        _streamed(text)
    assert _chunked_json(text, 0) == _chunked_json(text, 2**62)


def _streamed(text: str) -> bytes:
    """The text `read_members` writes, every member taken (nested ones read through)."""
    lines = Lines.writing()
    _take_all(read_members(text, lines))
    assert lines.complete
    return bytes(lines.text)


def _take_all(members: Members) -> None:
    for _, value, _ in members:
        if isinstance(value, Members):
            _take_all(value)


def test_arrays_an_envelope_wraps_are_read_item_by_item() -> None:
    """Arrays in objects are read an item at a time down to three levels (one item's
    parsed value alive at a time); objects below the top level, and arrays in arrays, are
    read whole."""
    envelope = {
        "status": "ok",
        "data": {
            "meta": {"tags": [1, 2]},
            "result": [{"values": [[1, "0.5"]]}],
            "pages": {"hits": {"hits": [1, 2]}},
            "deeper": [[1, 2]],
        },
        "list": [[3, 4]],
    }
    lines = Lines.writing()

    def shapes(members: Members) -> list:
        return [
            (key, shapes(value) if isinstance(value, Members) else type(value).__name__)
            for key, value, _ in members
        ]

    assert shapes(read_members(json.dumps(envelope), lines)) == [
        ("status", "str"),
        (
            "data",
            [
                ("meta", "dict"),
                ("result", [(None, "dict")]),
                ("pages", "dict"),
                ("deeper", [(None, "list")]),
            ],
        ),
        ("list", [(None, "list")]),
    ]
    assert bytes(lines.text) == orjson.dumps(envelope, option=orjson.OPT_INDENT_2)


def test_a_json_document_malformed_past_many_chunks_is_chunked_again_whole() -> None:
    items = [{"id": n, "text": "words " * 50} for n in range(2000)]
    text = json.dumps(items)[:-1] + ", NaN]"  # only the standard library reads NaN
    chunking = start_chunking(text)
    taken = []
    with pytest.raises(NotStreamable):
        for chunk in chunking.chunks:
            taken.append(chunk)
    assert len(taken) > 100  # the stream broke only at its end
    document = chunk_document(text)
    whole = start_chunking(text, whole_json=True)
    assert document.format is whole.format is DocumentFormat.JSON
    assert document.chunks == ChunkList(whole.chunks)
    assert (document.lines[-2], document.lines[-1]) == ("  NaN", "]")
    assert detect_format(text) is DocumentFormat.JSON


@pytest.mark.parametrize(
    "text",
    [
        "[10000000000000000000, 1e+19, 1.192092896e-07]",  # orjson reads that integer exactly
        "[18446744073709551616, 1e+19, 1.192092896e-07]",  # beyond: the standard library does
        "[-9223372036854775809, 1e+19]",
    ],
)
def test_a_huge_float_beside_a_long_integer_is_written_alike_either_way(text: str) -> None:
    assert _chunked_json(text, 0) == _chunked_json(text, 2**62)


@pytest.mark.parametrize("stream_min_chars", [0, 2**62], ids=["member by member", "whole"])
def test_json_chunks_are_made_as_they_are_taken(stream_min_chars: int) -> None:
    items = [{"name": f"item {n}", "text": "words " * 300} for n in range(40)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsondoc, "STREAM_MIN_CHARS", stream_min_chars)
        chunking = start_chunking(json.dumps(items))
    first = next(chunking.chunks)
    assert first.title == "$[0] (item 0)"
    assert len(chunking.outline) < 10  # the walk has gone no further than it had to
    rest = list(chunking.chunks)
    assert [entry.title for entry in chunking.outline][-3:] == ["[39] item 39", "name", "text"]
    assert [first, *rest] == chunk_document(json.dumps(items)).chunks


def test_a_plain_document_is_read_member_by_member_into_orjsons_text() -> None:
    text = ' \n{"k": [true, false, null], "é": {"id": 7, "x": 1.5e-07}}\n '
    assert _streamed(text) == orjson.dumps(json.loads(text), option=orjson.OPT_INDENT_2)
    _, _, _, outline = _chunked_json(text, 0)
    assert [(entry.line, entry.title) for entry in outline if entry.depth == 0] == [
        (2, "k"),  # the lines of the text as sent
        (2, "é"),
    ]
