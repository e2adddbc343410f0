"""SessionStore: indexing, ranked search, line reads, eviction, and resilience."""

import json
import threading
import time
from itertools import islice

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine import store_writes
from indexing.engine.chunker import DocumentFormat, chunk_document, start_chunking
from indexing.engine.errors import IndexToolError, LabelEvictedError
from indexing.engine.labels import LabelCounter
from indexing.engine.store import DocumentTooLargeError, Reservation, SessionStore
from indexing.engine.store_feed import ChunkFeed, DocumentAbandoned
from indexing.engine.store_rows import row_batches
from tests.engine_helpers import add_text, add_texts

GUIDE = """\
# Installation

Run the installer and restart the shell.

# Configuration

Set DATABASE_URL to point at PostgreSQL. The getUserById helper reads users.

# Troubleshooting

If migrations fail, check the database permissions.
"""


@pytest.fixture
def store() -> SessionStore:
    store = SessionStore()
    add_text(store, "docs__read:1", GUIDE, tool="docs__read", run=1)
    return store


def test_add_reports_lines_chunks_bytes_and_time() -> None:
    stats = add_text(SessionStore(), "t:1", GUIDE, tool="t", run=1)
    assert (stats.label, stats.lines, stats.chunks) == ("t:1", 11, 3)
    assert stats.bytes == len(GUIDE.encode())
    assert stats.seconds >= 0


def test_search_ranks_the_matching_section_first(store: SessionStore) -> None:
    hits = store.search("database permissions")
    assert hits[0].title == "Troubleshooting"
    assert (hits[0].label, hits[0].start_line, hits[0].end_line) == ("docs__read:1", 9, 11)


def test_search_matches_word_stems(store: SessionStore) -> None:
    assert store.search("installing")[0].title == "Installation"


def test_search_finds_substrings_of_identifiers(store: SessionStore) -> None:
    assert store.search("UserBy")[0].title == "Configuration"


def test_titles_weigh_more_than_bodies() -> None:
    store = SessionStore()
    add_text(store, "a:1", "# Notes\n\nconfiguration is mentioned here once.\n", tool="a")
    add_text(store, "b:1", "# Configuration\n\nNothing else.\n", tool="b")
    assert store.search("configuration")[0].label == "b:1"


def test_search_keeps_only_labels_starting_with_the_source(store: SessionStore) -> None:
    add_text(store, "other__tool:1", "# Installation\n\nOther installer.\n", tool="other__tool")
    assert {hit.label for hit in store.search("installer", source="other__")} == {"other__tool:1"}
    assert store.search("installer", source="nothing") == []


def test_read_lines_returns_numbered_slices(store: SessionStore) -> None:
    slices = store.read_lines("docs__read:1", 5, 7, max_chars=10_000)
    assert [(piece.number, piece.text) for piece in slices] == [
        (5, "# Configuration"),
        (6, ""),
        (7, "Set DATABASE_URL to point at PostgreSQL. The getUserById helper reads users."),
    ]


def test_a_label_is_never_indexed_twice(store: SessionStore) -> None:
    with pytest.raises(ValueError, match="already in use"):
        add_text(store, "docs__read:1", "again", tool="docs__read")


def test_oldest_documents_are_evicted_to_stay_within_the_bound() -> None:
    store = SessionStore(max_bytes=10_000)
    for run in range(1, 4):
        add_text(store, f"t:{run}", f"document {run}\n" + "filler words\n" * 300, tool="t", run=run)
    assert store.labels() == ["t:3", "t:2"][::-1]
    assert store.total_bytes <= 10_000
    assert store.evicted_labels() == ["t:1"]


def test_responses_are_evicted_before_the_catalog() -> None:
    store = SessionStore(max_bytes=12_000)
    add_texts(
        store, [(f"mcp/s/tool{n}", f"tool {n} does things\n" * 40) for n in range(4)], tool="c"
    )
    for run in range(1, 4):
        add_text(store, f"t:{run}", f"response {run}\n" + "filler words\n" * 300, tool="t", run=run)
    assert store.evicted_labels() == ["t:1"]  # the oldest response, not the older catalog
    assert store.labels(prefix="mcp/") == [f"mcp/s/tool{n}" for n in range(4)]
    add_text(store, "t:4", "filler words\n" * 700, tool="t", run=4)  # needs some catalog room too
    assert store.evicted_labels() == ["t:1", "t:2", "t:3", "mcp/s/tool0"]
    assert store.labels() == ["mcp/s/tool1", "mcp/s/tool2", "mcp/s/tool3", "t:4"]
    with pytest.raises(LabelEvictedError, match='"mcp/s/tool0" was evicted'):
        store.document("mcp/s/tool0")


def test_adding_no_documents_adds_nothing(store: SessionStore) -> None:
    labels = store.labels()
    assert store.add_documents([], tool="catalog") == []
    assert add_texts(store, [], tool="catalog") == []
    assert store.labels() == labels


def test_reading_an_evicted_label_says_it_was_evicted() -> None:
    store = SessionStore(max_bytes=5_000)
    add_text(store, "t:1", "old\n" * 1000, tool="t")
    add_text(store, "t:2", "new\n" * 1000, tool="t")
    with pytest.raises(LabelEvictedError, match='"t:1" was evicted'):
        store.document("t:1")
    assert store.search("old") == []


def test_an_unknown_label_error_names_the_closest_labels(store: SessionStore) -> None:
    with pytest.raises(IndexToolError, match='Closest labels: "docs__read:1"'):
        store.document("docs__read:2")


def test_a_document_larger_than_the_whole_bound_is_refused() -> None:
    store = SessionStore(max_bytes=100)
    with pytest.raises(DocumentTooLargeError):
        add_text(store, "t:1", "x" * 200, tool="t")
    assert store.labels() == []


def test_documents_above_the_trigram_bound_are_still_searchable_by_word() -> None:
    store = SessionStore(trigram_max_bytes=10)
    add_text(store, "t:1", "alpha beta gamma\n" * 10, tool="t")
    assert store.search("beta")[0].label == "t:1"


def test_label_counter_numbers_runs_per_tool_from_one_and_never_reuses_them() -> None:
    counter = LabelCounter()
    labels = [counter.next_label(tool).text for tool in ("a", "b", "a", "a")]
    assert labels == ["a:1", "b:1", "a:2", "a:3"]


def test_label_counter_is_safe_across_threads() -> None:
    counter = LabelCounter()
    seen: list[int] = []
    workers = [
        threading.Thread(
            target=lambda: seen.extend(counter.next_label("t").run for _ in range(500))
        )
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(seen) == list(range(1, 2001))


hostile_text = st.text() | st.sampled_from(
    [
        '"',
        '""',
        "*",
        "NEAR(",
        "^",
        "-",
        "AND",
        "OR NOT",
        "title:x",
        "\x00",
        "😀",
        "\ud800",
        "a" * 5000,
    ]
)


def test_hostile_queries_and_sources_never_fail_nor_damage_the_store() -> None:
    store = SessionStore()
    add_text(store, "docs__read:1", GUIDE, tool="docs__read", run=1)

    @settings(max_examples=300, deadline=None)
    @given(query=hostile_text, source=st.none() | hostile_text, limit=st.integers(-5, 50))
    def search_anything(query: str, source: str | None, limit: int) -> None:
        store.search(query, source=source, limit=limit)

    search_anything()
    assert store.search("permissions")[0].title == "Troubleshooting"


def test_binary_and_broken_unicode_content_is_indexed_and_readable() -> None:
    store = SessionStore()

    @settings(max_examples=100, deadline=None)
    @given(st.binary().map(lambda data: data.decode("utf-8", "surrogateescape")) | st.text())
    def index_anything(content: str) -> None:
        label = f"bin:{len(store.labels()) + len(store.evicted_labels()) + 1}"
        stats = add_text(store, label, content + "\x00\ud800 marker", tool="bin")
        store.read_lines(label, 1, stats.lines, max_chars=100_000)

    index_anything()
    add_text(store, "docs__read:1", GUIDE, tool="docs__read", run=1)
    assert store.search("permissions")[0].title == "Troubleshooting"


def _reference_slices(
    lines: list[str], first: int, last: int, skip: int, max_chars: int
) -> list[tuple[int, int, int, str]]:
    """What read_lines returns, computed from the lines themselves."""
    slices, total = [], 0
    for number in range(first, min(last, len(lines)) + 1):
        line = lines[number - 1]
        first_char = skip if number == first else 0
        text = line[first_char : first_char + max_chars]
        slices.append((number, len(line), first_char, text))
        total += len(text)
        if total >= max_chars:
            break
    return slices


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["", "short", "é" * 30, "x" * 900, "y" * 2500, "z" * 20_000]), max_size=300
    ),
    first=st.integers(1, 300),
    span=st.integers(0, 300),
    skip=st.integers(0, 5000),
    max_chars=st.integers(1, 70_000),
)
def test_read_lines_matches_the_stored_lines_for_any_page_layout(
    lines: list[str], first: int, span: int, skip: int, max_chars: int
) -> None:
    store = SessionStore()
    add_text(
        store, "t:1", "".join(line + "\n" for line in lines), tool="t", format=DocumentFormat.TEXT
    )
    got = store.read_lines("t:1", first, first + span, skip_chars=skip, max_chars=max_chars)
    expected = _reference_slices(lines, first, first + span, skip, max_chars)
    assert [(s.number, s.length, s.first_char, s.text) for s in got] == expected


def test_hits_carry_the_chunk_bodies_the_chunker_made() -> None:
    text = "# A\n\nalpha words here\n\n# B\n\n" + "x" * 5000 + " bravo\n"
    store = SessionStore()
    add_text(store, "t:1", text, tool="t")
    document = chunk_document(text)
    bodies = {document.body(chunk) for chunk in document.chunks}
    for query in ("alpha", "bravo", "XXXXX"):  # upper case: a substring query
        hits = store.search(query)
        assert hits and all(hit.body in bodies for hit in hits)


def test_evicted_documents_leave_no_search_rows_behind() -> None:
    store = SessionStore(max_bytes=20_000)
    add_text(store, "t:1", "# Old\n\nzebraword quokkaId\n" + "filler text\n" * 1000, tool="t")
    add_text(store, "t:2", "# New\n\nnothing special\n" + "other text\n" * 1500, tool="t")
    assert store.evicted_labels() == ["t:1"]
    assert store.search("zebraword quokkaId") == []
    add_text(store, "t:3", "# Newer\n\nzebraword again\n", tool="t")
    assert [hit.label for hit in store.search("zebraword")] == ["t:3"]


def test_eviction_forgets_every_term_the_document_put_in_the_index() -> None:
    # Contentless FTS tables forget a row only given exactly the text it was written with:
    # wide characters and a long line served in parts must be given back byte for byte.
    store = SessionStore(max_bytes=40_000)
    old = "# Café 😀\n\nzebraword quokkaId\n" + "ü" * 4_500 + "\n" + "filler text\n" * 1_000
    add_text(store, "t:1", old, tool="t")
    add_text(store, "t:2", "plain words only\n" * 2_000, tool="t")
    assert store.evicted_labels() == ["t:1"]
    db = store._connection  # the index itself: what a search could still match
    db.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, chunk_words, row)")
    db.execute("CREATE VIRTUAL TABLE temp.grams USING fts5vocab(main, chunk_trigrams, row)")
    assert {term for (term,) in db.execute("SELECT term FROM words")} == {"plain", "word", "onli"}
    grams = {term for (term,) in db.execute("SELECT term FROM grams")}
    assert grams and grams <= {
        "pla",
        "lai",
        "ain",
        "in ",
        "n w",
        " wo",
        "wor",
        "ord",
        "rds",
        "ds ",
        "s o",
        " on",
        "onl",
        "nly",
        "ly\n",
        "y\np",
        "\npl",
    }


def test_a_source_between_other_documents_keeps_only_its_chunks() -> None:
    store = SessionStore()
    for name in ("a__x:1", "b__y:1", "a__x:2", "c__z:1"):
        add_text(store, name, f"# {name}\n\ncommon words\n\n# More\n\ncommon again\n", tool="t")
    assert {hit.label for hit in store.search("common", source="a__", limit=20)} == {
        "a__x:1",
        "a__x:2",
    }
    assert {hit.label for hit in store.search("common", source="b__y:1", limit=20)} == {"b__y:1"}
    assert len({hit.label for hit in store.search("common", limit=20)}) == 4


def test_a_source_scattered_over_many_documents_is_filtered_exactly() -> None:
    store = SessionStore()
    for run in range(1, 81):
        tool = "even" if run % 2 == 0 else "odd"
        add_text(store, f"{tool}:{run}", f"# Doc {run}\n\nshared term {tool}\n", tool=tool)
    hits = store.search("shared term", source="even:", limit=20)
    assert len(hits) == 20 and all(hit.label.startswith("even:") for hit in hits)
    assert store.search("odd", source="even:") == []


def test_a_document_added_without_trigrams_is_still_found_by_its_words():
    store = SessionStore()
    add_text(
        store,
        "mcp/git/tool/git_log",
        "# git__git_log\n\nShow the commit logs.\n",
        tool="catalog",
        trigrams=False,
    )
    assert [hit.label for hit in store.search("commit logs")] == ["mcp/git/tool/git_log"]
    assert not store.document("mcp/git/tool/git_log").has_trigrams


def test_a_copy_answers_like_the_original_and_then_goes_its_own_way():
    original = SessionStore()
    add_text(
        original,
        "mcp/git/tool/git_log",
        "# git__git_log\n\nShow the commit logs.\n",
        tool="catalog",
    )
    twin = original.copy()
    assert [h.label for h in twin.search("commit logs")] == ["mcp/git/tool/git_log"]
    add_text(
        twin, "files__read:1", "# Notes\n\nThe commit was reverted.\n", tool="files__read", run=1
    )
    assert "files__read:1" in twin.labels()
    assert "files__read:1" not in original.labels()
    assert [h.label for h in original.search("reverted")] == []
    assert twin.document("mcp/git/tool/git_log").line_count == 3


def test_add_many_indexes_every_document_in_one_go():
    store = SessionStore()
    documents = [
        (f"mcp/s/tool/t{n}", f"# s__t{n}\n\nTool number {n} lists widgets.\n") for n in range(50)
    ]
    stats = add_texts(store, documents, tool="catalog", format=DocumentFormat.MARKDOWN)
    assert [s.label for s in stats] == [label for label, _ in documents]
    assert len(store.labels("mcp/")) == 50
    assert {hit.label for hit in store.search("widgets", limit=20)} <= set(store.labels())
    assert store.search("number 37")[0].label == "mcp/s/tool/t37"


def test_add_many_keeps_nothing_of_a_batch_that_fails(store):
    before = (store.labels(), store.total_bytes, store.search("installer"))
    batch = [("fresh:1", "# Fresh\n\nquokka facts\n"), ("docs__read:1", "# Clash\n\nquokka\n")]
    with pytest.raises(ValueError, match="already in use"):
        add_texts(store, batch, tool="t")
    assert (store.labels(), store.total_bytes, store.search("installer")) == before
    assert store.search("quokka") == []
    add_text(store, "fresh:1", "# Fresh\n\nquokka facts\n", tool="t")  # the label was never taken
    assert [hit.label for hit in store.search("quokka")] == ["fresh:1"]


def test_add_many_refuses_a_label_given_twice_and_a_batch_over_the_bound():
    store = SessionStore(max_bytes=1000)
    with pytest.raises(ValueError, match="given twice"):
        add_texts(store, [("a:1", "one\n"), ("a:1", "two\n")], tool="a")
    with pytest.raises(DocumentTooLargeError):
        add_texts(store, [("a:1", "x" * 600), ("a:2", "y" * 600)], tool="a")
    assert store.labels() == [] and store.total_bytes == 0


def reserve(store: SessionStore, label: str, text: str) -> Reservation:
    document = chunk_document(text)
    feed = ChunkFeed(document.lines, document.chunks)
    return store.reserve(label, document.format, feed, tool="t", run=1)


def test_reads_wait_for_a_reserved_document_to_be_written() -> None:
    store = SessionStore()
    reservation = reserve(store, "t:1", GUIDE)
    found: list[list[str]] = []
    reader = threading.Thread(target=lambda: found.append(store.labels()))
    reader.start()
    reader.join(timeout=0.2)
    assert reader.is_alive() and not found  # the label was promised: the read waits
    reservation.commit()
    reader.join(timeout=5)
    assert found == [["t:1"]]
    assert store.search("permissions")[0].label == "t:1"


def test_a_reserved_label_is_taken_and_a_failed_write_says_so_when_read(monkeypatch) -> None:
    store = SessionStore()
    reservation = reserve(store, "t:1", GUIDE)
    with pytest.raises(ValueError, match="already in use"):
        reserve(store, "t:1", GUIDE)

    def broken_insert(*args, **kwargs):
        raise MemoryError("out of memory")

    monkeypatch.setattr(store, "_insert", broken_insert)
    with pytest.raises(MemoryError):
        reservation.commit()
    with pytest.raises(IndexToolError, match='"t:1" could not be indexed: out of memory'):
        store.document("t:1")
    assert store.labels() == []  # and the store goes on working


MARKDOWN_PARTS = "".join(
    f"# Part {n}\n\nfact{n} " + "filler words " * 400 + "\n\n" for n in range(60)
)
JSON_PARTS = json.dumps(
    [{"name": f"Part {n}", "text": f"fact{n} " + "filler words " * 400} for n in range(60)]
)


@pytest.mark.parametrize(
    ("text", "last_title"),
    [(MARKDOWN_PARTS, "Part 59"), (JSON_PARTS, "$[59].text")],
    ids=["markdown", "json"],
)
def test_chunks_are_indexed_while_the_rest_are_still_being_made(
    monkeypatch, text: str, last_title: str
) -> None:
    chunking = start_chunking(text)
    store, feed = SessionStore(), ChunkFeed(chunking.lines, expected_bytes=len(text))
    written_before_the_end: list[bool] = []

    def watched(sources, batch_bytes):
        for batch in row_batches(sources, batch_bytes):
            written_before_the_end.append(feed.chunks._filling_titles is not None)
            yield batch

    monkeypatch.setattr(store_writes, "row_batches", watched)
    reservation = store.reserve("t:1", chunking.format, feed, tool="t", run=1)
    writer = threading.Thread(target=reservation.commit)
    writer.start()
    for chunk in chunking.chunks:
        feed.add(chunk)
        time.sleep(0.001)  # a slow chunker: the writer keeps up
    feed.finish(keep=True)
    writer.join(timeout=10)
    assert written_before_the_end.count(True) >= 2  # rows went in before the last chunk
    assert [hit.label for hit in store.search("fact0")] == ["t:1"]
    assert [hit.title for hit in store.search("fact59")] == [last_title]
    assert len(store._chunks["t:1"]) == len(feed.chunks) == store.document("t:1").last_chunk


def test_json_read_member_by_member_is_handed_to_the_writer_a_step_at_a_time() -> None:
    # Each member's chunk ends in text written since the lines were last indexed (they are
    # indexed a block at a time): the feed indexes them when a step is due.
    text = json.dumps([{"id": n, "counts": list(range(n, n + 20))} for n in range(6000)])
    chunking = start_chunking(text)
    feed = ChunkFeed(chunking.lines, expected_bytes=len(text))
    for chunk in islice(chunking.chunks, 500):  # about half of them
        feed.add(chunk)
    assert not chunking.lines.complete
    start, stop = next(feed.ranges())  # what was handed so far (it waits for one step)
    handed = chunking.lines.starts[feed.chunks.columns(stop - 1, stop).end_lines[0]]
    assert start == 0 and handed > chunking.lines.written_bytes() - feed.step - 4096


def test_an_abandoned_document_leaves_no_label_and_no_index_rows() -> None:
    chunking = start_chunking(GUIDE)
    store, feed = SessionStore(), ChunkFeed(chunking.lines)
    reservation = store.reserve("t:1", chunking.format, feed, tool="t", run=1)
    writer = threading.Thread(target=lambda: pytest.raises(DocumentAbandoned, reservation.commit))
    writer.start()
    for chunk in chunking.chunks:
        feed.add(chunk)
    feed.finish(keep=False)
    writer.join(timeout=5)
    assert not writer.is_alive() and store.labels() == [] and store.search("permissions") == []
    with pytest.raises(IndexToolError, match="Unknown label"):
        store.document("t:1")
    db = store._connection
    db.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, chunk_words, row)")
    assert db.execute("SELECT count(*) FROM words").fetchone() == (0,)


def test_a_document_written_larger_than_expected_still_leaves_the_store_within_its_bound() -> None:
    text = json.dumps([{"name": f"item {n}", "text": "filler words " * 40} for n in range(800)])
    chunking = start_chunking(text)
    assert not chunking.lines.complete  # read member by member: the size is not known yet
    store = SessionStore(max_bytes=len(text) + 50_000)
    old = add_text(store, "old:1", "# Old\n\n" + "older words\n" * 4000, tool="old")
    assert len(text) + old.bytes <= store.max_bytes  # room for what is expected
    feed = ChunkFeed(chunking.lines, expected_bytes=len(text))
    reservation = store.reserve("t:1", chunking.format, feed, tool="t", run=1)
    writer = threading.Thread(target=reservation.commit)
    writer.start()
    for chunk in chunking.chunks:
        feed.add(chunk)
    feed.finish(keep=True)
    writer.join(timeout=10)
    written = chunking.lines.utf8_size()
    assert written + old.bytes > store.max_bytes  # pretty-printed, it takes more
    assert store.document("t:1").byte_count == store.total_bytes == written
    assert store.labels() == ["t:1"]
    with pytest.raises(LabelEvictedError):
        store.document("old:1")


def test_a_document_written_beyond_the_whole_bound_is_not_kept() -> None:
    text = json.dumps([[n, n + 1, n + 2] for n in range(40_000)], separators=(",", ":"))
    chunking = start_chunking(text)
    store = SessionStore(max_bytes=2 * len(text))
    add_text(store, "old:1", "# Old\n\nolder words\n", tool="old")
    feed = ChunkFeed(chunking.lines, expected_bytes=len(text))
    reservation = store.reserve("t:1", chunking.format, feed, tool="t", run=1)
    failures: list[BaseException] = []

    def commit() -> None:
        failures.append(pytest.raises(DocumentTooLargeError, reservation.commit).value)

    writer = threading.Thread(target=commit)
    writer.start()
    for chunk in chunking.chunks:
        feed.add(chunk)
    feed.finish(keep=True)
    writer.join(timeout=10)
    assert chunking.lines.utf8_size() > store.max_bytes and len(failures) == 1
    assert store.labels() == ["old:1"] and store.search("40000") == []
    with pytest.raises(IndexToolError, match="could not be indexed"):
        store.document("t:1")


def test_lines_still_being_written_need_an_expected_size() -> None:
    with pytest.raises(ValueError, match="expected size"):
        ChunkFeed(start_chunking(JSON_PARTS).lines)
