"""IndexSearch output: several queries per call, limits, source filter, repeats referenced."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.errors import IndexToolError
from indexing.engine.search import CONTEXT_CHARS
from indexing.engine.store import SessionStore
from tests.engine_helpers import add_text, format_search

API = """\
# Issues

Create an issue with POST /issues. Issues have labels.

# Pull requests

Open a pull request with POST /pulls; link issues in the body.

# Webhooks

Webhooks deliver events.
"""


@pytest.fixture
def store() -> SessionStore:
    store = SessionStore()
    add_text(store, "github__docs:1", API, tool="github__docs", run=1)
    add_text(
        store,
        "jira__getIssue:1",
        "# PROJ-1\n\nLogin fails with a timeout; issue reopened.\n",
        tool="jira__getIssue",
    )
    return store


def test_each_query_lists_hits_with_label_lines_title_and_context(store: SessionStore) -> None:
    output = format_search(store, ["webhooks events"], limit=1)
    assert output == (
        'Query 1: "webhooks events" — 1 hit\n\n'
        "[1] github__docs:1 lines 9-11 — Webhooks\n"
        "# Webhooks\n\nWebhooks deliver events."
    )


def test_a_chunk_shown_for_an_earlier_query_is_referenced_not_repeated(
    store: SessionStore,
) -> None:
    output = format_search(store, ["webhooks", "deliver events"], limit=1)
    assert output.count("Webhooks deliver events.") == 1
    assert output.endswith("[1] github__docs:1 lines 9-11 — Webhooks (shown above: query 1, hit 1)")


def test_a_query_without_matches_says_so(store: SessionStore) -> None:
    assert format_search(store, ["zebra"]) == 'Query 1: "zebra" — 0 hits\n\nNo matches.'


def test_source_keeps_only_labels_starting_with_it(store: SessionStore) -> None:
    output = format_search(store, ["issue"], source="jira__getIssue:")
    assert "jira__getIssue:1" in output
    assert "github__docs:1" not in output


def test_a_responses_own_label_as_source_searches_that_response_only() -> None:
    store = SessionStore()
    for run in (3, 30, 31):
        add_text(
            store,
            f"files__read:{run}",
            f"run {run}: the shared words\n",
            tool="files__read",
            run=run,
        )
    only = format_search(store, ["shared"], source="files__read:3")
    assert only.startswith('Query 1: "shared" — 1 hit\n\n[1] files__read:3 line 1 —')
    assert "files__read:30" in format_search(store, ["shared"], source="files__read:")
    add_text(store, "mcp/docs", "the server's shared notes\n", tool="catalog")
    add_text(store, "mcp/docs/tool/x", "x: shared words\n", tool="catalog")
    assert "mcp/docs/tool/x" in format_search(store, ["shared"], source="mcp/docs")


def test_a_source_matching_no_label_is_an_error_listing_the_labels(store: SessionStore) -> None:
    with pytest.raises(IndexToolError) as error:
        format_search(store, ["issue"], source="mcp/")
    assert error.value.message == (
        'No indexed label starts with "mcp/". Indexed labels: "github__docs:1", "jira__getIssue:1".'
    )


def test_a_source_whose_labels_were_evicted_says_so() -> None:
    store = SessionStore(max_bytes=3_000)
    add_text(store, "old:1", "ancient words\n" * 150, tool="old")
    add_text(store, "new:1", "fresh words\n" * 150, tool="new")
    with pytest.raises(IndexToolError, match='"old:1" evicted'):
        format_search(store, ["words"], source="old:")


@pytest.mark.parametrize(("limit", "expected"), [(None, 5), (1, 1), (3, 3), (100, 20)])
def test_limit_defaults_to_5_and_more_than_20_counts_as_20(limit: object, expected: int) -> None:
    store = SessionStore()
    add_text(store, "many:1", "\n\n".join(f"needle {i}" for i in range(30)), tool="many")
    # Each paragraph is tiny, so force one chunk per paragraph with a large separator.
    add_text(
        store, "many:2", "\n\n".join(f"needle {i} " + "x" * 2500 for i in range(30)), tool="many"
    )
    output = format_search(store, ["needle"], source="many:2", limit=limit)
    assert output.count("[") - output.count("[…") == expected


@pytest.mark.parametrize("limit", ["lots", 2.5, True, [3]])
def test_a_limit_that_is_not_a_whole_number_is_an_error(store: SessionStore, limit: object) -> None:
    with pytest.raises(IndexToolError, match="limit must be a whole number"):
        format_search(store, ["issue"], limit=limit)


@pytest.mark.parametrize("limit", [0, -3, "0"])
def test_a_limit_below_1_is_an_error(store: SessionStore, limit: object) -> None:
    with pytest.raises(IndexToolError, match="limit must be at least 1"):
        format_search(store, ["issue"], limit=limit)


@pytest.mark.parametrize("queries", [[], None, 5, "bare string", ["ok", 3], ["q"] * 21])
def test_queries_must_be_a_short_list_of_strings(store: SessionStore, queries: object) -> None:
    with pytest.raises(IndexToolError, match="quer"):
        format_search(store, queries)


def test_context_is_cut_at_about_3000_characters() -> None:
    store = SessionStore()
    add_text(store, "big:1", "word " * 5000, tool="big")
    first_hit = format_search(store, ["word"], limit=1).split("\n", 3)[3]
    assert len(first_hit) < CONTEXT_CHARS + 100


def test_hostile_queries_never_fail_and_the_store_keeps_working(store: SessionStore) -> None:
    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.text() | st.just('"NEAR( * ^ AND title:x 😀\x00'), min_size=1, max_size=3))
    def search(queries: list[str]) -> None:
        format_search(store, queries, limit=20)

    search()
    assert "lines 9-11" in format_search(store, ["webhooks"])


def test_a_10_kb_query_is_valid_input(store: SessionStore) -> None:
    assert format_search(store, ["issue " + "x" * 10_000]).startswith('Query 1: "issue x')
