"""Markdown: sections at headings titled by breadcrumbs; fenced code blocks stay whole."""

import re
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

import numpy as np

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.document import OutlineEntry
from indexing.engine.chunker.line_patterns import LinePattern
from indexing.engine.chunker.lines import SPACE, Lines
from indexing.engine.chunker.packing import pack_lines
from indexing.engine.chunker.sizing import TARGET_CHUNK_CHARS, Block
from indexing.engine.text import one_line

_STRUCTURE = LinePattern(
    r" {0,3}(?=[#`~=-])(?:"
    r"(?P<hashes>#{1,6})(?=[ \t\r]|$)(?P<heading>[^\n]*)"
    r"|(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    r"|(?P<underline>=+|-+)[ \t\r]*$"  # a CRLF line keeps its `\r`
    r")"
)
"""A line that can open structure: an ATX heading, a code fence or a setext underline.

Only the lines `_structure_candidates` finds are matched; `match.lastgroup` tells which
structure the line has (the last group of its alternative).
"""
_OPENERS = np.zeros(256, np.bool_)
_OPENERS[list(b"#`~=-")] = True
_UNDERLINE_ENDS = np.zeros(256, np.bool_)
_UNDERLINE_ENDS[list(b"=- \t\r")] = True
_CANDIDATE_BLOCK_LINES = 1 << 14
PREAMBLE_TITLE = "Preamble"
MERGE_MIN_BYTES = 16 * 1024
"""Smaller documents keep one chunk per section. Catalog documents are always smaller
(`indexing.engine.catalog_chunks` builds their chunks as one per section)."""
SMALL_SECTION_BYTES = 1000
"""A section up to this size may share its chunk with the small sections that follow it."""
MAX_MERGED_SECTIONS = 8
"""At most this many sections share a chunk (and headings its title)."""


class Heading(NamedTuple):
    """A heading found outside code fences (a tuple: documents have thousands)."""

    index: int
    level: int
    text: str


def scan_markdown(lines: Lines, fences: list[Block]) -> Iterator[Heading]:
    """The ATX and setext headings, in order, as the scan finds them; a fence hides headings.

    Fenced code blocks are appended to `fences` as they are found: by the time a heading
    is yielded, every fence above it is there. One regex scan of the text finds the lines
    that can open structure; a fence's closing line is searched for from its opening line,
    and the lines up to it are passed over.
    """
    text = lines.text
    closed = -1  # the closing line of the last fence
    last_heading = -1  # the line of the last heading
    for index in _structure_candidates(lines):
        if index <= closed or (match := _STRUCTURE.match(lines, index)) is None:
            continue
        kind = match.lastgroup
        if kind == "heading":
            last_heading = index
            yield Heading(index, len(match["hashes"]), _heading_text(match["heading"].decode()))
        elif kind == "info":
            fence = match["fence"]
            if fence[:1] == b"`" and b"`" in match["info"]:
                continue  # inline code, not a fence: a backtick fence's info has no backtick
            closing = _closing_fence(fence[:1], len(fence)).search(text, match.end())
            closed = len(lines) - 1 if closing is None else lines.index_at(closing.start() + 1)
            fences.append((index, closed))
        elif last_heading != index - 1 and _is_setext_underline(lines, index):
            last_heading = index - 1
            level = 1 if match["underline"][:1] == b"=" else 2
            yield Heading(index - 1, level, lines[index - 1].strip())


def _structure_candidates(lines: Lines) -> Iterator[int]:
    """The 0-based indexes of the lines `_STRUCTURE` may match, found at C speed: those whose
    first byte after up to three spaces is `#`, a backtick, `~`, `=` or `-`, and for `=` and
    `-` whose last byte is one of those or a blank (a setext underline; not a list item).

    Found a block of lines at a time, so that numpy's arrays stay small.
    """
    data = np.frombuffer(lines.text, np.uint8)
    bound = len(data) - 1
    all_starts = lines.starts_view()
    for first in range(0, len(lines), _CANDIDATE_BLOCK_LINES):
        starts = all_starts[first : first + _CANDIDATE_BLOCK_LINES + 1].astype(np.int64)
        lead = data[starts[:-1]]
        spaced = np.flatnonzero(lead == SPACE)
        at = starts[spaced]
        for _ in range(3):  # up to three spaces before the opener
            at += 1
            lead[spaced] = data[np.minimum(at, bound)]  # past the text: the line's last space
            still = lead[spaced] == SPACE
            spaced, at = spaced[still], at[still]
        candidates = _OPENERS[lead]
        underlines = np.flatnonzero((lead == ord("-")) | (lead == ord("=")))
        ends = starts[underlines + 1] - 2  # each line's last byte
        candidates[underlines] = _UNDERLINE_ENDS[data[np.minimum(ends, bound)]]
        yield from (np.flatnonzero(candidates) + first).tolist()


def _heading_text(rest: str) -> str:
    """An ATX heading's text from what follows its `#`s: no closing `#`s, no outer blanks.

    What `#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$` captures, without a lazy match.
    """
    content = rest.strip(" \t\r")
    unclosed = content.rstrip("#")
    if unclosed != content and unclosed != unclosed.rstrip(" \t"):
        return unclosed.rstrip(" \t")
    return content


@cache
def _closing_fence(char: bytes, length: int) -> re.Pattern:
    """A line of at least `length` fence characters, alone but for whitespace."""
    return re.compile(rb"\n[^\S\n]*%b{%d,}[^\S\n]*$" % (re.escape(char), length), re.M)


def _is_setext_underline(lines: Lines, index: int) -> bool:
    """True for `===`/`---` under a one-line paragraph (not a list item, not a heading)."""
    if index == 0:
        return False
    above = lines[index - 1]
    if not above.strip() or above.startswith((" " * 4, "\t", ">", "-", "*", "+", "|")):
        return False
    return index == 1 or not lines[index - 2].strip()


def chunk_markdown(lines: Lines) -> tuple[Iterator[Chunk], list[OutlineEntry]]:
    """Chunk Markdown by section with breadcrumb titles `A > B > C`: the chunks, made as
    they are taken (the scan with them), and the outline, complete once they all are.

    In a document of MERGE_MIN_BYTES or more, runs of small sections share a chunk
    (`_sections`).
    """
    outline: list[OutlineEntry] = []
    return _chunks(lines, outline), outline


def _chunks(lines: Lines, outline: list[OutlineEntry]) -> Iterator[Chunk]:
    fences: list[Block] = []
    cursor = _FenceCursor(fences)
    headings = scan_markdown(lines, fences)
    first = next(headings, None)
    first_line = len(lines) if first is None else first.index
    if first_line > 0:
        atoms = cursor.take(first_line - 1)
        yield from pack_lines(lines, 0, first_line - 1, PREAMBLE_TITLE, atoms=atoms)
    if first is None:
        return
    for first_line, last_line, title in _sections(lines, first, headings, outline):
        atoms = cursor.take(last_line)
        yield from pack_lines(lines, first_line, last_line, title, atoms=atoms)


def _sections(
    lines: Lines, heading: Heading, headings: Iterator[Heading], outline: list[OutlineEntry]
) -> Iterator[tuple[int, int, str]]:
    """(first, last, title) of each section, from `heading` on: 0-based lines from a heading
    to the next one, titled by its breadcrumb; each heading's outline entry is added on the
    way. In a document of MERGE_MIN_BYTES or more, runs of small sections are merged.

    A run starts at a section of at most SMALL_SECTION_BYTES (UTF-8) and takes the following
    ones of that size while the run holds at most TARGET_CHUNK_CHARS and MAX_MERGED_SECTIONS
    sections and they are not above its level (its subsections and later siblings, never
    its parent's siblings). Its lines are the sections' lines, first to last (one chunk:
    it fits); its title is the first section's breadcrumb plus each later heading's name,
    `A > B; C; D`, so every heading keeps the title weight search gives it.
    """
    starts, line_count = lines.starts, len(lines)
    merging = len(lines.text) >= MERGE_MIN_BYTES
    levels: list[int] = []  # the breadcrumb: levels and names of the headings above
    names: list[str] = []
    run_first = -1  # the run of small sections being merged: its first line, ...
    run_last = run_level = run_size = run_count = 0
    run_title = ""
    while heading is not None:
        following = next(headings, None)
        first, level, text = heading
        last = line_count - 1 if following is None else following.index - 1
        name = one_line(text) or "(untitled)"
        outline.append(OutlineEntry(first + 1, name, level - 1))
        while levels and levels[-1] >= level:
            levels.pop()
            names.pop()
        levels.append(level)
        names.append(name)
        heading = following
        if not merging:
            yield first, last, " > ".join(names)
            continue
        size = starts[last + 1] - starts[first]
        if (
            run_first >= 0
            and size <= SMALL_SECTION_BYTES
            and run_count < MAX_MERGED_SECTIONS
            and run_size + size <= TARGET_CHUNK_CHARS
            and level >= run_level
        ):
            run_last, run_title = last, f"{run_title}; {name}"
            run_size, run_count = run_size + size, run_count + 1
            continue
        if run_first >= 0:
            yield run_first, run_last, run_title
            run_first = -1
        if size > SMALL_SECTION_BYTES:
            yield first, last, " > ".join(names)
        else:
            run_first, run_last, run_level, run_title = first, last, level, " > ".join(names)
            run_size, run_count = size, 1
    if run_first >= 0:
        yield run_first, run_last, run_title


class _FenceCursor:
    """Hands out a document's fenced code blocks section by section, in order."""

    __slots__ = ("fences", "next")

    def __init__(self, fences: list[Block]) -> None:
        self.fences = fences
        self.next = 0

    def take(self, last: int) -> list[Block]:
        """The fences not taken yet that open by line `last`, cut at `last`.

        A fence ends inside its section, unless its closing line is taken for a setext
        heading's text (a `---` under it); the section then ends just before that line.
        """
        taken: list[Block] = []
        while self.next < len(self.fences) and self.fences[self.next][0] <= last:
            opening, closed = self.fences[self.next]
            taken.append((opening, min(closed, last)))
            self.next += 1
        return taken
