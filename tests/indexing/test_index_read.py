"""IndexRead output: numbered lines, pages, long-line parts, offsets and label errors."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.errors import IndexToolError, LabelEvictedError
from indexing.engine.read import MAX_READ_BYTES, format_read
from indexing.engine.store import SessionStore
from tests.engine_helpers import add_text


@pytest.fixture
def store() -> SessionStore:
    store = SessionStore()
    add_text(
        store, "logs__tail:1", "\n".join(f"entry {n}" for n in range(1, 234)), tool="logs__tail"
    )
    long_line = "".join(chr(ord("a") + n % 26) for n in range(4500))
    add_text(store, "wide:1", f"short\n{long_line}\nlast", tool="wide")
    return store


def test_read_returns_200_numbered_lines_by_default_then_the_footer(store: SessionStore) -> None:
    lines = format_read(store, "logs__tail:1").split("\n")
    assert lines[0] == "1: entry 1"
    assert lines[199] == "200: entry 200"
    assert lines[200:] == ['[33 more lines — continue with offset="201"]']


def test_the_footer_names_the_remaining_lines_and_the_offset_to_continue(
    store: SessionStore,
) -> None:
    output = format_read(store, "logs__tail:1", offset="1", limit=60)
    assert output.endswith('60: entry 60\n[173 more lines — continue with offset="61"]')


def test_reading_to_the_end_has_no_footer(store: SessionStore) -> None:
    assert format_read(store, "logs__tail:1", offset="232") == "232: entry 232\n233: entry 233"


def test_long_lines_are_split_into_parts_labelled_n_m(store: SessionStore) -> None:
    lines = format_read(store, "wide:1").split("\n")
    assert [line.split(":")[0] for line in lines] == ["1", "2-1", "2-2", "2-3", "3"]
    assert len(lines[1]) == len("2-1: ") + 2000
    assert len(lines[3]) == len("2-3: ") + 500


def test_limit_counts_whole_lines_not_parts(store: SessionStore) -> None:
    output = format_read(store, "wide:1", offset="2", limit=1)
    assert [line.split(":")[0] for line in output.split("\n")] == [
        "2-1",
        "2-2",
        "2-3",
        '[1 more line — continue with offset="3"]',
    ]


def test_an_offset_can_start_inside_a_long_line(store: SessionStore) -> None:
    assert format_read(store, "wide:1", offset="2-3", limit=1).startswith("2-3: ")
    assert format_read(store, "wide:1", offset=" 3 ") == "3: last"
    assert format_read(store, "wide:1", offset=3) == "3: last"


def test_a_read_stops_at_about_64_kb_and_continues_inside_a_line() -> None:
    store = SessionStore()
    add_text(store, "huge:1", "y" * 200_000 + "\nend", tool="huge")
    first = format_read(store, "huge:1")
    assert len(first.encode()) <= MAX_READ_BYTES
    assert first.endswith('[2 more lines — continue with offset="1-33"]')
    second = format_read(store, "huge:1", offset="1-33")
    assert second.startswith("1-33: ")
    assert second.endswith('[2 more lines — continue with offset="1-65"]')


@pytest.mark.parametrize(
    "offset", ["1-", "abc", "3-0", "0", "-1", "", "1-2-3", "1.5", -4, 2.0, [1]]
)
def test_a_malformed_offset_is_a_clear_error(store: SessionStore, offset: object) -> None:
    with pytest.raises(IndexToolError, match="offset"):
        format_read(store, "logs__tail:1", offset=offset)


def test_an_offset_past_the_end_is_an_error(store: SessionStore) -> None:
    with pytest.raises(IndexToolError, match='past the end: "logs__tail:1" has 233 lines'):
        format_read(store, "logs__tail:1", offset="234")


def test_a_part_beyond_the_line_is_an_error(store: SessionStore) -> None:
    with pytest.raises(IndexToolError, match="line 2 has only 3 parts"):
        format_read(store, "wide:1", offset="2-4")
    with pytest.raises(IndexToolError, match="line 1 is not split into parts"):
        format_read(store, "wide:1", offset="1-2")


def test_an_unknown_label_is_an_error_naming_the_closest_labels(store: SessionStore) -> None:
    with pytest.raises(IndexToolError) as error:
        format_read(store, "logs__tail:7")
    assert error.value.message == 'Unknown label "logs__tail:7". Closest labels: "logs__tail:1".'


def test_an_unrelated_label_is_an_error_listing_the_known_labels(store: SessionStore) -> None:
    with pytest.raises(IndexToolError, match='Known labels: "logs__tail:1", "wide:1"'):
        format_read(store, "zzzzzzzzzzzzzzzz")


def test_reading_an_evicted_label_is_an_error_saying_so() -> None:
    store = SessionStore(max_bytes=4_000)
    add_text(store, "t:1", "a\n" * 1500, tool="t")
    add_text(store, "t:2", "b\n" * 1500, tool="t")
    with pytest.raises(LabelEvictedError, match="evicted"):
        format_read(store, "t:1")


def test_hostile_offsets_limits_and_labels_only_ever_raise_index_tool_errors(
    store: SessionStore,
) -> None:
    anything = st.none() | st.text(max_size=30) | st.integers() | st.floats() | st.booleans()

    @settings(max_examples=300, deadline=None)
    @given(
        label=anything | st.sampled_from(["wide:1", "logs__tail:1"]),
        offset=anything,
        limit=anything,
    )
    def read(label: object, offset: object, limit: object) -> None:
        with contextlib.suppress(IndexToolError):
            format_read(store, label, offset, limit)

    read()
    assert format_read(store, "wide:1", offset="3") == "3: last"
