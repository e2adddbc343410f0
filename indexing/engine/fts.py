"""The one place user text becomes FTS5 MATCH expressions.

Semantics: the query is split on whitespace; every piece becomes a quoted FTS5 string
(embedded `"` doubled), so operators (`AND`, `NEAR(`, `*`, `^`, `-`, `col:`) are plain text.
Pieces are OR-ed (`any_of`): BM25 ranks chunks matching more (and rarer) pieces first. The
store may also join parenthesised groups of them by AND or NOT (see
`indexing.engine.store_ranking.Ranking.ranked_by_rare`), which no piece can break out of. For
the porter table a piece like `read_file` becomes the phrase "read file"; for the trigram
table pieces shorter than three characters cannot match and are dropped. The trigram
table is only asked when some piece is one the porter table cannot serve: a plain
lowercase word (`[a-z]+`) is matched by its stem there, while identifiers, digits,
punctuation and mixed case need the substring index. It is then asked for every piece, so
its ranking does not favour chunks matching only the unusual piece.
"""

import re

from indexing.engine.text import sanitize

MAX_QUERY_TERMS = 32
MAX_TERM_CHARS = 200
TRIGRAM_MIN_CHARS = 3

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PLAIN_WORD = re.compile(r"[a-z]+")


def query_terms(query: str) -> list[str]:
    """Split query text into at most MAX_QUERY_TERMS distinct, non-empty pieces."""
    terms: list[str] = []
    for piece in sanitize(_CONTROL.sub(" ", query)).split():
        term = piece[:MAX_TERM_CHARS]
        if term not in terms:
            terms.append(term)
            if len(terms) == MAX_QUERY_TERMS:
                break
    return terms


def is_plain_word(term: str) -> bool:
    """True for a lowercase ASCII word, which the porter table serves without substrings."""
    return _PLAIN_WORD.fullmatch(term) is not None


def fts_phrases(query: str, *, min_chars: int = 1, unless_plain: bool = False) -> list[str]:
    """Return the pieces of any `query` as quoted FTS5 strings; none when no piece can match.

    `unless_plain` also returns none when every piece is a plain lowercase `[a-z]+` word.
    """
    terms = [term for term in query_terms(query) if len(term) >= min_chars]
    if unless_plain and all(map(is_plain_word, terms)):
        return []
    return ['"' + term.replace('"', '""') + '"' for term in terms]


def any_of(phrases: list[str]) -> str:
    """The MATCH expression for rows holding any of `phrases` (from `fts_phrases`)."""
    return " OR ".join(phrases)
