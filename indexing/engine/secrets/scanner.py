"""Find and mask credentials in text: one `SecretScanner` for every shape of `patterns`.

A mask keeps only the kind of what it hides, `[masked: github token]`, never a part of the
secret, and as many line ends as the secret spanned, so the lines after it keep their
numbers (a masked private key block leaves blank lines behind).

The scanner works on the text's UTF-8 bytes: the anchors are searched there at twice the
speed of the same search on a `str`, and every shape is ASCII, so a match starts and ends on
character boundaries. Lone surrogates (JSON's "\\ud800") pass through as they are.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ahocorasick_rs import BytesAhoCorasick, MatchKind

from indexing.engine.secrets.patterns import SHAPES, SecretShape

MASK = "[masked: {kind}]"
SHORT_ANCHOR = 4
"""Anchors shorter than this get an automaton of their own: mixed with the longer ones they
keep its SIMD prefilter from working (2 ms a MiB instead of 0.3)."""
MANY_HITS = 32
"""Past this many places of one anchor, its shapes search the whole text once."""
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
ENCODING, ERRORS = "utf-8", "surrogatepass"


@dataclass(frozen=True)
class Found:
    """One credential: where it is (UTF-8 byte offsets) and what kind it is."""

    start: int
    end: int
    kind: str


@dataclass
class Masked:
    """A text with its credentials masked, and how many of each kind were."""

    text: str
    counts: Counter[str] = field(default_factory=Counter)


def mask_for(kind: str, secret: str) -> str:
    """What replaces a secret: its kind, then its line ends (never any of its characters)."""
    return MASK.format(kind=kind) + "\n" * secret.count("\n")


class SecretScanner:
    """Finds the credentials of known shapes in a text and masks them.

    Two passes of Aho-Corasick automata (Rust, SIMD prefilters; short anchors apart) find
    every anchor of every shape; a shape's expression is then matched only where one of its
    anchors starts, so a text costs about one substring search whatever the number of shapes.
    """

    def __init__(self, shapes: tuple[SecretShape, ...] = SHAPES) -> None:
        by_anchor: dict[str, list[tuple[SecretShape, re.Pattern[bytes]]]] = {}
        self._common: list[tuple[SecretShape, re.Pattern[bytes]]] = []
        for shape in shapes:
            expression = shape.compile()
            if shape.common:
                self._common.append((shape, expression))
                continue
            for anchor in shape.anchors:
                by_anchor.setdefault(anchor, []).append((shape, expression))
        short = [anchor for anchor in by_anchor if len(anchor) < SHORT_ANCHOR]
        long = [anchor for anchor in by_anchor if len(anchor) >= SHORT_ANCHOR]
        self._automata = [
            (
                BytesAhoCorasick(
                    [anchor.encode("ascii") for anchor in group],
                    matchkind=MatchKind.LeftmostLongest,
                ),
                [by_anchor[anchor] for anchor in group],
            )
            for group in (long, short)
            if group
        ]

    def find(self, text: str) -> list[Found]:
        """The credentials in `text`, in order, none overlapping (the earliest and then
        longest wins); offsets are of its UTF-8 bytes."""
        return self._find(text.encode(ENCODING, ERRORS))

    def mask(self, text: str) -> Masked:
        """`text` with every credential replaced by its mask, and the counts per kind; the
        same object when there is none."""
        ascii_only = text.isascii()  # then byte offsets are the text's own: no decoding
        data = text.encode(ENCODING, ERRORS)
        found = self._find(data)
        if not found:
            return Masked(text)
        source = text if ascii_only else data
        parts, counts, position = [], Counter(), 0
        for item in found:
            parts.append(source[position : item.start])
            secret = data[item.start : item.end].decode(ENCODING, ERRORS)
            mask = mask_for(item.kind, secret)
            parts.append(mask if ascii_only else mask.encode(ENCODING))
            counts[item.kind] += 1
            position = item.end
        parts.append(source[position:])
        if ascii_only:
            return Masked("".join(parts), counts)
        return Masked(b"".join(parts).decode(ENCODING, ERRORS), counts)

    def _find(self, data: bytes) -> list[Found]:
        found: list[Found] = []
        for shape, expression in self._common:
            if any(anchor.encode("ascii") in data for anchor in shape.anchors):
                found.extend(_found(shape, expression, data, expression.finditer(data)))
        for automaton, shapes in self._automata:
            starts: dict[int, list[int]] = {}
            for index, start, _end in automaton.find_matches_as_indexes(data):
                starts.setdefault(index, []).append(start)
            for index, at in starts.items():
                for shape, expression in shapes[index]:
                    if len(at) > MANY_HITS:  # one search (C) beats a Python loop over the hits
                        matches = expression.finditer(data)
                    else:
                        matches = filter(None, (expression.match(data, start) for start in at))
                    found.extend(_found(shape, expression, data, matches))
        if len(found) < 2:
            return found
        found.sort(key=lambda item: (item.start, -item.end))
        kept: list[Found] = []
        for item in found:
            if not kept or item.start >= kept[-1].end:
                kept.append(item)
        return kept


def _found(
    shape: SecretShape,
    expression: re.Pattern[bytes],
    data: bytes,
    matches: Iterable[re.Match[bytes]],
) -> Iterator[Found]:
    """The credentials these matches of a shape are (not those inside a longer word)."""
    secret = "secret" in expression.groupindex
    for match in matches:
        start = match.start()
        if shape.word_start and start > 0 and data[start - 1] in WORD_BYTES:
            continue
        if secret:
            yield Found(match.start("secret"), match.end("secret"), shape.kind)
        else:
            yield Found(start, match.end(), shape.kind)
