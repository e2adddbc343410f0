"""FTS rows written a batch at a time: SQLite slices exactly each chunk's body from the text."""

import json
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.chunker import chunk_document
from indexing.engine.store_rows import RowSource, insert_rows_sql, row_batches

pieces = st.sampled_from(
    ["word ", "é", "😀", "\n", "\n\n", "# Heading\n", "```\ncode\n```\n", "x" * 2500, "é" * 2100]
)


def bodies_sqlite_slices(document, batch_bytes: int) -> list[tuple[int, str, str]]:
    """(rowid, title, body) as the store's statement writes them, into a plain table."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE plain (title, body)")
    for batch in row_batches(
        [RowSource(document.lines, document.chunks.columns(), 7)], batch_bytes
    ):
        db.execute(insert_rows_sql("plain"), batch)
    rows = db.execute("SELECT rowid, title, body FROM plain ORDER BY rowid").fetchall()
    db.close()
    return rows


@settings(max_examples=150, deadline=None)
@given(st.lists(pieces, max_size=40).map("".join), st.sampled_from([1, 64, 4096, 1 << 20]))
def test_each_row_is_its_chunks_title_and_body(text: str, batch_bytes: int) -> None:
    document = chunk_document(text)
    expected = [
        (7 + number, chunk.title, document.body(chunk))
        for number, chunk in enumerate(document.chunks)
    ]
    assert bodies_sqlite_slices(document, batch_bytes) == expected


def test_long_lines_are_sliced_into_the_parts_indexread_serves() -> None:
    text = json.dumps({"wide": "é" * 9_000, "narrow": "x" * 4_500, "list": [1, 2]})
    document = chunk_document(text)
    assert sum(1 for chunk in document.chunks if chunk.part) >= 6
    rows = bodies_sqlite_slices(document, 1 << 20)
    assert [body for _, _, body in rows] == [document.body(c) for c in document.chunks]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.lists(pieces, max_size=12).map("".join), max_size=6),
    st.sampled_from([1, 300, 1 << 20]),
)
def test_a_batch_can_hold_the_chunks_of_many_documents(texts: list[str], batch_bytes: int) -> None:
    documents = [chunk_document(text) for text in texts]
    firsts = [1000 * number for number in range(len(documents))]  # ids need not be adjacent
    sources = [
        RowSource(d.lines, d.chunks.columns(), first)
        for d, first in zip(documents, firsts, strict=True)
    ]
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE plain (title, body)")
    for batch in row_batches(sources, batch_bytes):
        db.execute(insert_rows_sql("plain"), batch)
    expected = [
        (first + number, chunk.title, document.body(chunk))
        for document, first in zip(documents, firsts, strict=True)
        for number, chunk in enumerate(document.chunks)
    ]
    assert db.execute("SELECT rowid, title, body FROM plain ORDER BY rowid").fetchall() == expected
