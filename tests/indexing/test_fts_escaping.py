"""fts_phrases and any_of: the one place user text becomes FTS5 MATCH expressions."""

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.fts import MAX_QUERY_TERMS, any_of, fts_phrases


def escape_fts(query: str, **options: object) -> str | None:
    """The expression asking for any piece of `query`, or None when no piece can match."""
    return any_of(fts_phrases(query, **options)) or None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("create issue", '"create" OR "issue"'),
        ('say "hi"', '"say" OR """hi"""'),
        ("NEAR(a b)", '"NEAR(a" OR "b)"'),
        ("a AND b", '"a" OR "AND" OR "b"'),
        ("title:x", '"title:x"'),
        ("pre* ^start -not", '"pre*" OR "^start" OR "-not"'),
        ("dup dup", '"dup"'),
        ("tab\tnul\x00end", '"tab" OR "nul" OR "end"'),
        ("   ", None),
        ("", None),
    ],
)
def test_escape_fts_quotes_every_piece_as_an_fts_string(query: str, expected: str | None) -> None:
    assert escape_fts(query) == expected


def test_trigram_expressions_drop_pieces_shorter_than_three_characters() -> None:
    assert escape_fts("a to read_file", min_chars=3) == '"read_file"'
    assert escape_fts("a to", min_chars=3) is None


def test_escape_fts_keeps_at_most_a_bounded_number_of_pieces() -> None:
    expression = escape_fts(" ".join(f"w{i}" for i in range(1000)))
    assert expression is not None
    assert expression.count(" OR ") == MAX_QUERY_TERMS - 1


@pytest.fixture(scope="module")
def fts_tables() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    for name, tokenizer in (("words", "porter unicode61"), ("grams", "trigram")):
        connection.execute(
            f"CREATE VIRTUAL TABLE {name} USING fts5(title, body, tokenize='{tokenizer}')"
        )
        connection.execute(f"INSERT INTO {name} VALUES ('Title', 'some body text')")
    return connection


@settings(max_examples=300, deadline=None)
@given(st.text() | st.binary().map(lambda data: data.decode("latin-1")))
def test_any_text_gives_a_valid_match_expression(query: str) -> None:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE words USING fts5(title, body, tokenize='porter')")
    connection.execute("CREATE VIRTUAL TABLE grams USING fts5(title, body, tokenize='trigram')")
    for table, min_chars in (("words", 1), ("grams", 3)):
        phrases = fts_phrases(query, min_chars=min_chars)
        half = len(phrases) // 2
        expressions = [any_of(phrases)]
        if half:
            first, rest = any_of(phrases[:half]), any_of(phrases[half:])
            expressions += [f"({first}) {operator} ({rest})" for operator in ("AND", "NOT")]
        for expression in expressions if phrases else []:
            connection.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (expression,))


def test_a_100_kb_query_is_a_valid_match_expression(fts_tables: sqlite3.Connection) -> None:
    expression = escape_fts('"NEAR( * ^ ' * 10_000)
    assert expression is not None
    fts_tables.execute("SELECT rowid FROM words WHERE words MATCH ?", (expression,)).fetchall()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("database permissions", None),
        ("getUserById helper", '"getUserById" OR "helper"'),
        ("error 404", '"error" OR "404"'),
        ("read_file", '"read_file"'),
        ("of it", None),
    ],
)
def test_the_trigram_table_is_only_asked_when_a_piece_is_not_a_plain_word(
    query: str, expected: str | None
) -> None:
    assert escape_fts(query, min_chars=3, unless_plain=True) == expected
