"""IndexSearch: several queries in one call, hits ranked best-first, repeats referenced."""

from collections.abc import Callable
from typing import NamedTuple

from indexing.engine.arguments import parse_limit, parse_queries, parse_source
from indexing.engine.errors import IndexToolError, list_labels
from indexing.engine.store import Hit, SessionStore
from indexing.engine.text import one_line

DEFAULT_HITS = 5
MAX_HITS = 20
CONTEXT_CHARS = 3000


class Ranked(NamedTuple):
    """Each query's hits, best first, and what the answer should say of how they were ranked
    (that keywords alone ranked them, say), if anything."""

    hits: list[list[Hit]]
    note: str | None = None


Ranker = Callable[[list[str], str | None, int], Ranked]
"""(queries, source prefix, limit) -> each query's hits; the store's own search by default.
It gets every query of a call at once, so that it can embed them in one pass."""


def search_with_labels(
    store: SessionStore,
    queries: object,
    source: object = None,
    limit: object = None,
    rank: Ranker | None = None,
) -> tuple[str, list[str]]:
    """Run every query and render the hits, a chunk shown for an earlier query referenced;
    with the labels of every hit (best first, without repeats).

    Raises:
        IndexToolError: bad arguments, or a `source` no live label starts with.
    """
    texts = parse_queries(queries)
    prefix = parse_source(source)
    hits_per_query = parse_limit(limit, default=DEFAULT_HITS, maximum=MAX_HITS)
    if prefix is not None and not store.labels(prefix):
        raise _no_such_source(store, prefix)
    shown: dict[int, tuple[int, int]] = {}
    sections = []
    labels: dict[str, None] = {}
    if rank is None:
        ranked = Ranked([store.search(text, source=prefix, limit=hits_per_query) for text in texts])
    else:
        ranked = rank(texts, prefix, hits_per_query)
    for query_number, (text, hits) in enumerate(zip(texts, ranked.hits, strict=True), start=1):
        labels.update(dict.fromkeys(hit.label for hit in hits))
        sections.append(_render_query(query_number, text, hits, shown))
    if ranked.note:
        sections.append(ranked.note)
    return "\n\n".join(sections), list(labels)


def _render_query(
    query_number: int, text: str, hits: list[Hit], shown: dict[int, tuple[int, int]]
) -> str:
    """Render one query's hits, recording which chunks it showed in `shown`."""
    count = f"{len(hits)} hit" + ("" if len(hits) == 1 else "s")
    blocks = [f'Query {query_number}: "{one_line(text, 120)}" — {count}']
    if not hits:
        blocks.append("No matches.")
    for hit_number, hit in enumerate(hits, start=1):
        header = f"[{hit_number}] {hit.label} {location(hit)} — {hit.title or '(untitled)'}"
        if hit.chunk_id in shown:
            earlier_query, earlier_hit = shown[hit.chunk_id]
            blocks.append(f"{header} (shown above: query {earlier_query}, hit {earlier_hit})")
            continue
        shown[hit.chunk_id] = (query_number, hit_number)
        blocks.append(f"{header}\n{_context(hit)}")
    return "\n\n".join(blocks)


def location(hit: Hit) -> str:
    """Say which lines a hit covers, in the terms IndexRead offsets use."""
    if hit.part is not None:
        return f'line {hit.start_line} part {hit.part} (offset "{hit.start_line}-{hit.part}")'
    if hit.start_line == hit.end_line:
        return f"line {hit.start_line}"
    return f"lines {hit.start_line}-{hit.end_line}"


def _context(hit: Hit) -> str:
    """Return the chunk body, cut to CONTEXT_CHARS with a note saying where the rest is."""
    if len(hit.body) <= CONTEXT_CHARS:
        return hit.body
    return hit.body[:CONTEXT_CHARS] + f"\n[… cut; the rest is in {location(hit)}]"


def _no_such_source(store: SessionStore, prefix: str) -> IndexToolError:
    """Explain that no live label starts with `prefix`, listing the labels that exist."""
    evicted = store.evicted_labels(prefix)
    gone = f" ({list_labels(evicted)} evicted to stay within the memory bound)" if evicted else ""
    return IndexToolError(
        f'No indexed label starts with "{prefix}"{gone}. Indexed labels: '
        f"{list_labels(store.labels())}."
    )
