"""ResponseCompressor: the placeholder's exact shape, pass-through rules, and robustness."""

import asyncio
import json
import re

import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.api.tool_results import compress_result
from indexing.engine.chunker.jsondoc import STREAM_MIN_CHARS
from indexing.engine.compressor import ResponseCompressor
from indexing.engine.errors import IndexToolError
from indexing.engine.labels import LabelCounter
from indexing.engine.read import FINAL_NEWLINE_NOTE, format_read
from indexing.engine.store import SessionStore
from indexing.engine.text import utf8_size
from tests.engine_helpers import compress_text, format_search

# 63-character lines (64 bytes with the newline): the ~2 KB preview is easy to count.
LINES = (
    ["# Overview"]
    + [f"Overview line {n:02d}: the service answers requests".ljust(63, ".") for n in range(1, 41)]
    + ["# Endpoints"]
    + [f"GET /items/{n:03d} returns item {n} as JSON".ljust(63, ".") for n in range(1, 192)]
)
RESPONSE = "\n".join(LINES) + "\n"


def compressor_at_run(run: int, store: SessionStore | None = None) -> ResponseCompressor:
    counter = LabelCounter()
    for _ in range(run - 1):
        counter.next_label("filesystem__read_file")
    return ResponseCompressor(store or SessionStore(), counter)


def test_the_placeholder_has_exactly_the_documented_shape() -> None:
    text, stats = compress_text(
        compressor_at_run(3), "filesystem__read_file", RESPONSE, threshold=1000
    )
    # "# Overview\n" is 11 bytes; 31 more lines of 64 bytes fit in 2048: the preview ends at 32.
    preview = "\n".join(LINES[:32])
    assert text == (
        '[Response compressed — 14807 bytes, 233 lines, indexed as "filesystem__read_file:3"]\n'
        "\n"
        f"{preview}\n"
        "[… preview ends at line 32 of 233]\n"
        "\n"
        "## Contents\n"
        "- [L1] Overview\n"
        "- [L42] Endpoints\n"
        "\n"
        'Read all of it: IndexRead(label="filesystem__read_file:3", limit=233)\n'
        'Read a range:   IndexRead(label="filesystem__read_file:3",'
        ' offset="<line>", limit=<lines>)\n'
        'Search it:      IndexSearch(queries=["<terms>"], source="filesystem__read_file:3")'
    )
    assert stats is not None
    assert (stats.label, stats.tool, stats.run) == (
        "filesystem__read_file:3",
        "filesystem__read_file",
        3,
    )
    assert (stats.original_bytes, stats.delivered_bytes) == (14807, utf8_size(text))
    assert (stats.lines, stats.chunks) == (233, 8)


def test_the_hints_use_the_configured_tool_names() -> None:
    text, _ = compress_text(
        compressor_at_run(1),
        "t",
        RESPONSE,
        threshold=1000,
        search_tool="find_in_index",
        read_tool="read_index",
    )
    assert text is not None
    assert 'read_index(label="t:1", limit=233)' in text
    assert 'find_in_index(queries=["<terms>"], source="t:1")' in text


def test_the_indexed_response_can_be_read_and_searched_by_its_label() -> None:
    store = SessionStore()
    _, stats = compress_text(
        compressor_at_run(1, store), "filesystem__read_file", RESPONSE, threshold=1000
    )
    assert stats is not None
    assert format_read(store, stats.label, offset="42", limit=1).startswith("42: # Endpoints\n")
    assert "GET /items/150" in format_search(store, ["items/150"], source=stats.label, limit=1)
    assert store.stats == [stats]


def test_responses_up_to_the_threshold_pass_through_without_using_a_run() -> None:
    store = SessionStore()
    counter = LabelCounter()
    compressor = ResponseCompressor(store, counter)
    assert compress_text(compressor, "t", RESPONSE, threshold=utf8_size(RESPONSE)) == (None, None)
    assert store.labels() == [] and store.stats == []
    assert counter.next_label("t").run == 1


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_threshold_counts_utf8_bytes_of_the_response_as_given(newline: str) -> None:
    text = newline.join(f"ligne {n} é😀\x00 " + "mot " * 40 for n in range(200))
    size = utf8_size(text)
    assert len(text) < size  # characters beyond ASCII: bytes, not characters, count
    for threshold, indexed in [(size, False), (size - 1, True), (len(text), True)]:
        compressor = ResponseCompressor(SessionStore(), LabelCounter())
        _, stats = compress_text(compressor, "t", text, threshold=threshold)
        assert (stats is not None) is indexed
        if indexed:
            assert stats.original_bytes == size


def test_a_response_is_unchanged_when_the_placeholder_would_not_be_smaller() -> None:
    store = SessionStore()
    text = "\n".join(f"row {n}" for n in range(300))  # 2,289 bytes: preview + hints exceed it
    assert compress_text(ResponseCompressor(store, LabelCounter()), "t", text, threshold=100) == (
        None,
        None,
    )
    assert store.labels() == []


def test_runs_count_per_tool_and_are_never_reused() -> None:
    compressor = ResponseCompressor(SessionStore(), LabelCounter())
    labels = [
        compress_text(compressor, tool, RESPONSE, threshold=1000)[1] for tool in ("a", "b", "a")
    ]
    assert [stats.label for stats in labels if stats] == ["a:1", "b:1", "a:2"]


def test_a_first_line_longer_than_the_preview_is_cut_at_a_character_boundary() -> None:
    text, _ = compress_text(compressor_at_run(1), "t", "é" * 30_000 + "\nsecond\n", threshold=1000)
    assert text is not None
    preview = text.split("\n\n", 2)[1]
    assert preview == "é" * 1024 + "\n[… preview ends at line 1 of 2 (cut mid-line)]"


def test_plain_text_without_structure_has_no_contents_section() -> None:
    log = "\n".join(f"2024-01-01T00:00:00 INFO request {n} served" for n in range(2000))
    text, _ = compress_text(compressor_at_run(1), "logs", log, threshold=1000)
    assert text is not None
    assert "## Contents" not in text
    assert re.search(r"\[… preview ends at line \d+ of 2000\]\n\nRead all of it:", text)


def test_contents_drop_the_deepest_levels_first_then_are_cut_with_a_note() -> None:
    sections = [f"# Part {a}\n\n## Chapter {a}.{b}\n\ntext\n" for a in range(30) for b in range(5)]
    text, _ = compress_text(compressor_at_run(1), "docs", "".join(sections), threshold=1000)
    assert text is not None
    contents = text.split("## Contents\n", 1)[1].split("\n\n", 1)[0]
    assert "Chapter" not in contents
    assert contents.startswith("- [L1] Part 0\n")
    assert utf8_size(contents) <= 2048

    many = "".join(f"# Heading number {n}\n\ntext\n" for n in range(500))
    text, _ = compress_text(compressor_at_run(1), "docs", many, threshold=1000)
    assert text is not None
    contents = text.split("## Contents\n", 1)[1].split("\n\n", 1)[0]
    assert utf8_size(contents) <= 2048
    assert contents.splitlines()[-1].startswith("- … ")
    assert "more entries" in contents.splitlines()[-1]


def test_a_lone_title_keeps_its_sections_in_contents_cut_with_a_note() -> None:
    changelog = "# Changelog\n\n" + "".join(
        f"## 1.{n}.0\n\n### Fixes\n\n- fixed bug {n}\n\n" for n in range(300, 0, -1)
    )
    text, _ = compress_text(compressor_at_run(1), "docs", changelog, threshold=1000)
    assert text is not None
    contents = text.split("## Contents\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert contents[:3] == ["- [L1] Changelog", "  - [L3] 1.300.0", "  - [L9] 1.299.0"]
    assert not any("Fixes" in item for item in contents)  # the deepest level goes first
    assert re.fullmatch(r"  - … \d+ more entries \(search or read to find them\)", contents[-1])
    assert utf8_size("\n".join(contents)) <= 2048


def test_json_responses_are_previewed_and_outlined_as_pretty_printed_lines() -> None:
    payload = {"items": [{"id": n, "name": f"item {n}"} for n in range(400)], "total": 400}
    text, stats = compress_text(compressor_at_run(1), "api", json.dumps(payload), threshold=1000)
    assert text is not None and stats is not None
    assert stats.lines == len(json.dumps(payload, indent=2).split("\n"))
    assert text.split("\n\n", 2)[1].startswith('{\n  "items": [\n    {\n      "id": 0,')
    assert "- [L2] items\n" in text
    assert f"- [L{stats.lines - 1}] total" in text


def test_compression_is_deterministic() -> None:
    first = compress_text(compressor_at_run(1), "t", RESPONSE, threshold=1000)[0]
    assert first == compress_text(compressor_at_run(1), "t", RESPONSE, threshold=1000)[0]


def test_binary_nul_and_lone_surrogates_never_crash_compression() -> None:
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())

    @settings(max_examples=60, deadline=None)
    @given(
        st.binary(min_size=1).map(lambda data: data.decode("utf-8", "surrogateescape"))
        | st.text(min_size=1)
    )
    def compress(content: str) -> None:
        text, stats = compress_text(
            compressor, "bin\x00\ud800", content * (3000 // len(content) + 1), threshold=1000
        )
        if stats is not None:
            assert text is not None
            text.encode("utf-8")
            format_read(store, stats.label)

    compress()
    assert store.labels()


def test_a_50_mb_response_indexes_and_stays_readable_and_searchable() -> None:
    block = "".join(
        f"2024-05-01T10:{n % 60:02d}:00Z INFO worker-{n % 7} handled job {n} in {n % 900} ms\n"
        for n in range(10_000)
    )
    response = block * (50 * 2**20 // len(block) + 1) + "the final needle line\n"
    store = SessionStore()
    text, stats = compress_text(
        ResponseCompressor(store, LabelCounter()), "logs", response, threshold=16384
    )
    assert text is not None and stats is not None
    assert stats.original_bytes > 50 * 2**20
    assert format_search(store, ["final needle"], limit=1).count("the final needle line") == 1
    assert (
        format_read(store, stats.label, offset=str(stats.lines))
        == f"{stats.lines}: the final needle line\n{FINAL_NEWLINE_NOTE}"
    )


def test_a_large_json_response_malformed_at_its_end_is_indexed_whole_under_the_next_run() -> None:
    items = [{"id": n, "text": "words " * 50} for n in range(2000)]
    text = json.dumps(items)[:-1] + ", NaN]"  # read member by member until the NaN
    store = SessionStore()
    placeholder, stats = compress_text(
        ResponseCompressor(store, LabelCounter()), "t", text, threshold=1000
    )
    assert placeholder is not None and stats is not None
    assert stats.label == "t:2" and store.labels() == ["t:2"] and store.stats == [stats]
    assert 'indexed as "t:2"' in placeholder
    lines = format_read(store, "t:2", offset=str(stats.lines - 1), limit=2)
    assert lines == f"{stats.lines - 1}:   NaN\n{stats.lines}: ]"
    assert "id" in format_search(store, ["1999"], source="t:2", limit=1)
    with pytest.raises(IndexToolError, match='Unknown label "t:1"'):
        format_read(store, "t:1")


def test_text_that_only_opens_like_json_takes_the_first_run() -> None:
    text = "".join(f"[2024-05-01 10:00:{n % 60:02d}] INFO job {n} done\n" for n in range(9000))
    assert len(text) > STREAM_MIN_CHARS  # long enough to be read member by member
    store = SessionStore()
    _, stats = compress_text(ResponseCompressor(store, LabelCounter()), "log", text, threshold=1000)
    assert stats is not None and stats.label == "log:1" and store.labels() == ["log:1"]


def test_a_json_response_pretty_printed_beyond_the_store_bound_passes_through() -> None:
    text = json.dumps([[n, n + 1, n + 2] for n in range(40_000)], separators=(",", ":"))
    store = SessionStore(max_bytes=2 * len(text))  # room for the response, not its lines
    compressed = compress_text(ResponseCompressor(store, LabelCounter()), "t", text, threshold=1000)
    assert compressed == (None, None)
    assert store.labels() == [] and store.total_bytes == 0 and store.stats == []


@pytest.mark.anyio
async def test_the_placeholder_comes_before_the_store_is_written_and_reads_wait_for_it() -> None:
    store = SessionStore()
    result = types.CallToolResult(content=[types.TextContent(type="text", text=RESPONSE)])
    compressed, compression = await compress_result(
        result,
        compressor_at_run(1, store),
        tool_name="filesystem__read_file",
        threshold=1000,
        search_tool="IndexSearch",
        read_tool="IndexRead",
    )
    assert compression is not None
    assert compressed.content[0].text == compression.placeholder
    read = await asyncio.to_thread(format_read, store, "filesystem__read_file:1", "43", 1)
    assert read.startswith("43: GET /items/001 returns item 1 as JSON")
    assert [stats.label for stats in store.stats] == ["filesystem__read_file:1"]


def test_the_read_all_hint_says_how_many_reads_a_large_text_takes() -> None:
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    log = "\n".join(f"2024-01-01T00:00:00 INFO request {n} served by worker" for n in range(9000))
    text, stats = compress_text(compressor, "logs", log, threshold=1000)
    assert text is not None and stats is not None
    announced = re.search(r"limit=9000\)  \(about (\d+) calls: each returns at most 64 KB", text)
    assert announced, text
    reads, offset = 0, None
    while True:
        page = format_read(store, stats.label, offset=offset, limit=9000)
        reads += 1
        more = re.search(r'continue with offset="(\d+)"\]$', page)
        if more is None:
            break
        offset = more.group(1)
    assert reads == int(announced.group(1))


def test_a_text_one_read_holds_gets_no_count_of_reads() -> None:
    text, _ = compress_text(compressor_at_run(3), "filesystem__read_file", RESPONSE, threshold=1000)
    assert text is not None
    assert "limit=233)\n" in text
