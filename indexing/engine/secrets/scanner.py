"""Find and mask credentials in text: one `SecretScanner` for every shape of `patterns`.

A mask keeps only the kind of what it hides, `[masked: github token]`, never a part of the
secret, and as many line ends as the secret spanned, so the lines after it keep their
numbers (a masked private key block leaves blank lines behind).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ahocorasick_rs import AhoCorasick

from indexing.engine.secrets.patterns import SHAPES, SecretShape

MASK = "[masked: {kind}]"
SURROGATE = re.compile("[\ud800-\udfff]")
WORD_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class Found:
    """One credential in a text: where it is and what kind it is."""

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
    line_ends = secret.count("\n")
    return MASK.format(kind=kind) + "\n" * line_ends


class SecretScanner:
    """Finds the credentials of known shapes in a text and masks them.

    One pass of an Aho-Corasick automaton (Rust, SIMD prefilter) finds every anchor of every
    shape; a shape's expression is then matched only where one of its anchors starts, so a
    text costs about one substring search whatever the number of shapes.
    """

    def __init__(self, shapes: tuple[SecretShape, ...] = SHAPES) -> None:
        by_anchor: dict[str, list[tuple[SecretShape, re.Pattern[str]]]] = {}
        for shape in shapes:
            expression = shape.compile()
            for anchor in shape.anchors:
                by_anchor.setdefault(anchor, []).append((shape, expression))
        self._anchors = list(by_anchor)
        self._shapes = [by_anchor[anchor] for anchor in self._anchors]
        self._automaton = AhoCorasick(self._anchors)

    def find(self, text: str) -> list[Found]:
        """The credentials in `text`, in order, none overlapping (the earliest and then
        longest wins)."""
        found: list[Found] = []
        for index, start, _end in self._anchor_hits(text):
            for shape, expression in self._shapes[index]:
                if shape.word_start and start > 0 and text[start - 1] in WORD_CHARACTERS:
                    continue
                match = expression.match(text, start)
                if match is None:
                    continue
                if "secret" in expression.groupindex:
                    found.append(Found(match.start("secret"), match.end("secret"), shape.kind))
                else:
                    found.append(Found(start, match.end(), shape.kind))
        if len(found) < 2:
            return found
        found.sort(key=lambda item: (item.start, -item.end))
        kept: list[Found] = []
        for item in found:
            if not kept or item.start >= kept[-1].end:
                kept.append(item)
        return kept

    def mask(self, text: str) -> Masked:
        """`text` with every credential replaced by its mask, and the counts per kind."""
        found = self.find(text)
        if not found:
            return Masked(text)
        parts, counts, position = [], Counter(), 0
        for item in found:
            parts.append(text[position : item.start])
            parts.append(mask_for(item.kind, text[item.start : item.end]))
            counts[item.kind] += 1
            position = item.end
        parts.append(text[position:])
        return Masked("".join(parts), counts)

    def _anchor_hits(self, text: str) -> list[tuple[int, int, int]]:
        """(anchor, start, end) of every anchor in `text`, overlapping ones too."""
        try:
            return self._automaton.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:
            # Lone surrogates (JSON's "\ud800") cannot cross into Rust: search a copy with
            # each replaced by U+FFFD, which keeps every index.
            searchable = SURROGATE.sub("\ufffd", text)
            return self._automaton.find_matches_as_indexes(searchable, overlapping=True)
