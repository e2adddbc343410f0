"""Writing a store's FTS rows: documents' chunks as their feeds hand them over, in
transactions."""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from indexing.engine.store_feed import ChunkFeed
from indexing.engine.store_rows import RELEASED_BATCH, RowSource, insert_rows_sql, row_batches
from indexing.engine.store_schema import FTS_TABLES


def write_rows(
    connection: sqlite3.Connection,
    documents: list[tuple[ChunkFeed, int]],
    with_trigrams: bool,
    *,
    delete: bool = False,
) -> None:
    """Write the FTS rows of documents (feed, first chunk id) as their feeds hand the
    chunks over (or forget them: `delete`); a batch may hold many small documents."""
    tables = FTS_TABLES if with_trigrams else FTS_TABLES[:1]
    statements = [insert_rows_sql(table, delete=delete) for table in tables]
    sources = (
        RowSource(feed.lines, feed.chunks.columns(start, stop), first + start)
        for feed, first in documents
        for start, stop in feed.ranges()
    )
    for batch in row_batches(sources, max(feed.step for feed, _ in documents)):
        for statement in statements:
            connection.execute(statement, batch)


def release_statements(
    connection: sqlite3.Connection, *, with_trigrams: bool, delete: bool = False
) -> None:
    """Run the row statements on an empty batch: cached, they would keep a copy of the
    last batch's text (up to a MiB) as long as the store lives."""
    for table in FTS_TABLES if with_trigrams else FTS_TABLES[:1]:
        connection.execute(insert_rows_sql(table, delete=delete), RELEASED_BATCH)


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """One SQLite transaction: committed, or rolled back on any error."""
    connection.execute("BEGIN")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
