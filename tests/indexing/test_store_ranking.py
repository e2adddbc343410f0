"""Ranking by rare phrases: a query with common words scores only the chunks holding a rarer
one, and answers exactly as scoring every matching chunk would, or declines."""

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.store import SessionStore
from indexing.engine.store_ranking import Ranking
from tests.engine_helpers import add_text, add_texts

SHARE = {"alpha": 0.7, "bravo": 0.4, "charlie": 0.25, "delta": 0.1, "echo": 0.04, "foxtrot": 0.015}
"""The share of sections holding each word (some also in their heading)."""
FILLER = [f"w{number}" for number in range(300)]


def _section(rnd: random.Random) -> str:
    words = [rnd.choice(FILLER) for _ in range(rnd.randint(5, 80))]
    for word, share in SHARE.items():
        if rnd.random() < share:
            for _ in range(rnd.randint(1, 3)):
                words.insert(rnd.randrange(len(words) + 1), word)
    title = rnd.sample(FILLER, 2)
    if rnd.random() < 0.2:
        title.append(rnd.choice(list(SHARE)))
    return f"# {' '.join(title)}\n\n{' '.join(words)}\n"


@pytest.fixture(scope="module")
def stores() -> Iterator[tuple[SessionStore, SessionStore]]:
    """360 one-section chunks; and a copy that scores every matching chunk."""
    rnd = random.Random(7)
    store = SessionStore()
    for number in range(30):
        text = "\n".join(_section(rnd) for _ in range(12))
        add_text(store, f"t:{number}", text, tool="t")
    plain = store.copy()
    plain._ranking.ranked_by_rare = lambda *_: None
    yield store, plain
    store.close()
    plain.close()


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each ranking by rare phrases answered (True) or declined (False)."""
    seen: list[bool] = []
    ranked_by_rare = Ranking.ranked_by_rare

    def spy(self: Ranking, *args: object) -> list[int] | None:
        ranked = ranked_by_rare(self, *args)
        seen.append(ranked is not None)
        return ranked

    monkeypatch.setattr(Ranking, "ranked_by_rare", spy)
    return seen


def _ids(store: SessionStore, query: str, limit: int, source: str | None = None) -> list[int]:
    return [hit.chunk_id for hit in store.search(query, source=source, limit=limit)]


pieces = st.sampled_from(
    [*SHARE, "w1", "w42", "Alpha", "ECHO", "alpha_bravo", "w4", '"', "NOT", "(", "*", "x:"]
)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(pieces, min_size=1, max_size=6), limit=st.integers(1, 25))
def test_the_ranking_is_the_one_of_every_matching_chunk(
    stores: tuple[SessionStore, SessionStore], words: list[str], limit: int
) -> None:
    store, plain = stores
    query = " ".join(words)
    assert _ids(store, query, limit) == _ids(plain, query, limit)
    assert _ids(store, query, limit, source="t:1") == _ids(plain, query, limit, source="t:1")


def test_a_rare_word_spares_scoring_the_chunks_holding_only_common_ones(
    stores: tuple[SessionStore, SessionStore], answers: list[bool]
) -> None:
    store, plain = stores
    for query in ("alpha foxtrot", "alpha bravo echo", "foxtrot alpha charlie bravo"):
        assert _ids(store, query, 5) == _ids(plain, query, 5)
    assert answers == [True, True, True]


def _one_chunk_each(sections: list[str]) -> SessionStore:
    """A store holding each section as a document of its own (no chunker merges them)."""
    store = SessionStore()
    documents = [(f"t:{number}", section) for number, section in enumerate(sections)]
    add_texts(store, documents, tool="t", trigrams=False)
    return store


def test_the_chunk_holding_every_word_comes_first(answers: list[bool]) -> None:
    sections = [f"# Part {n}\n\nsome widgets, number {n}.\n" for n in range(120)]
    sections += [f"# Rest {n}\n\nnothing to see\n" for n in range(180)]
    for n in range(50, 58):
        sections[n] = f"# Part {n}\n\nA zyzzyva, alone.\n" + "other text " * (n - 48) + "\n"
    sections[97] = "# Part 97\n\nThe zyzzyva eats widgets.\n"
    hits = _one_chunk_each(sections).search("widgets zyzzyva")
    assert [hit.title for hit in hits] == ["Part 97", "Part 50", "Part 51", "Part 52", "Part 53"]
    assert answers == [True]


def test_chunks_holding_only_common_words_still_rank_when_they_score_higher(
    answers: list[bool],
) -> None:
    filler = " ".join(f"w{n}" for n in range(200))
    sections = [f"# Note {n}\n\n{filler} zyzzyva\n" for n in range(6)]
    sections += [f"# Widget {n}\n\nwidget\n" for n in range(5)]
    sections += [f"# Other {n}\n\nsome widget here\n" for n in range(145)]
    sections += [f"# Rest {n}\n\nnothing to see\n" for n in range(244)]
    hits = _one_chunk_each(sections).search("widget zyzzyva")
    assert [hit.title for hit in hits] == [f"Widget {n}" for n in range(5)]
    assert answers == [False]


def test_the_row_count_behind_the_ceiling_is_the_one_fts5_uses() -> None:
    """The ceiling takes FTS5's idf: one row per chunk of each live document a table indexes."""
    store = SessionStore(max_bytes=12_000)
    add_text(store, "a:1", "# A\n\nhello world\n" * 600, tool="t")
    add_text(store, "b:1", "# B\n\nhello there\n" * 300, tool="t", trigrams=False)
    add_text(store, "c:1", "# C\n\nbye\n" * 200, tool="t")
    assert store.evicted_labels() == ["a:1"]
    for table in ("chunk_words", "chunk_trigrams"):
        (rows,) = store._connection.execute(f"SELECT count(*) FROM {table}").fetchone()
        assert store._fts_rows(table) == rows > 0
