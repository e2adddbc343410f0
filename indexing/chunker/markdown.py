"""Markdown: sections at headings titled by breadcrumbs; fenced code blocks stay whole."""

import re
from dataclasses import dataclass
from typing import NamedTuple

from indexing.chunker.document import Chunk, OutlineEntry
from indexing.chunker.sizing import Block, pack_blocks
from indexing.text import one_line

_ATX_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*$")
PREAMBLE_TITLE = "Preamble"


class Heading(NamedTuple):
    """A heading found outside code fences (a tuple: documents have thousands)."""

    index: int
    level: int
    text: str


@dataclass(slots=True)
class MarkdownScan:
    """Headings and fenced code blocks of a Markdown document (0-based line indexes)."""

    headings: list[Heading]
    fences: list[Block]


def scan_markdown(lines: list[str]) -> MarkdownScan:
    """Find ATX and setext headings and fenced code blocks; a fence hides headings."""
    headings: list[Heading] = []
    fences: list[Block] = []
    fence: tuple[str, int, int] | None = None  # marker char, marker length, opening index
    for index, line in enumerate(lines):
        if fence is not None:
            char, length, opened = fence
            if char not in line:  # cheap skip: a closing fence is made of the marker char
                continue
            stripped = line.strip()
            if len(stripped) >= length and stripped == char * len(stripped):
                fences.append((opened, index))
                fence = None
            continue
        if not line:
            continue
        first = line[0]
        if first == " ":  # up to three spaces may precede structure
            stripped = line.lstrip(" ")
            if len(line) - len(stripped) > 3 or not stripped:
                continue
            first = stripped[0]
        # The first character tells which structure the line can open.
        if first == "`" or first == "~":
            if opening := _FENCE_OPEN.match(line):
                marker = opening.group(1)
                if marker[0] == "~" or "`" not in line[opening.end() :]:
                    fence = (marker[0], len(marker), index)
        elif first == "#":
            if heading := _ATX_HEADING.match(line):
                headings.append(Heading(index, len(heading.group(1)), heading.group(2) or ""))
        elif (first == "=" or first == "-") and _is_setext_underline(lines, index, headings):
            level = 1 if first == "=" else 2
            headings.append(Heading(index - 1, level, lines[index - 1].strip()))
    if fence is not None:
        fences.append((fence[2], len(lines) - 1))
    return MarkdownScan(headings, fences)


def _is_setext_underline(lines: list[str], index: int, headings: list[Heading]) -> bool:
    """True for `===`/`---` under a one-line paragraph (not a list item, not a heading)."""
    if index == 0 or not _SETEXT_UNDERLINE.match(lines[index]):
        return False
    above = lines[index - 1]
    if not above.strip() or above.startswith((" " * 4, "\t", ">", "-", "*", "+", "|")):
        return False
    if headings and headings[-1].index == index - 1:
        return False
    return index == 1 or not lines[index - 2].strip()


def chunk_markdown(lines: list[str]) -> tuple[list[Chunk], list[OutlineEntry]]:
    """Chunk Markdown by section with breadcrumb titles `A > B > C`."""
    scan = scan_markdown(lines)
    starts = [heading.index for heading in scan.headings]
    fence_end = dict(scan.fences)
    chunks: list[Chunk] = []
    if not starts or starts[0] > 0:
        first_end = (starts[0] if starts else len(lines)) - 1
        if any(line.strip() for line in lines[: first_end + 1]):
            blocks = _section_blocks(lines, 0, first_end, fence_end)
            chunks.extend(pack_blocks(lines, blocks, PREAMBLE_TITLE))
    names = [one_line(heading.text) or "(untitled)" for heading in scan.headings]
    trail: list[tuple[int, str]] = []  # (level, name) of the headings above
    for position, heading in enumerate(scan.headings):
        while trail and trail[-1][0] >= heading.level:
            trail.pop()
        trail.append((heading.level, names[position]))
        title = " > ".join(name for _, name in trail)
        end = starts[position + 1] - 1 if position + 1 < len(starts) else len(lines) - 1
        blocks = _section_blocks(lines, heading.index, end, fence_end)
        chunks.extend(pack_blocks(lines, blocks, title))
    outline = [
        OutlineEntry(heading.index + 1, name, heading.level - 1)
        for heading, name in zip(scan.headings, names, strict=True)
    ]
    return chunks, outline


def _section_blocks(
    lines: list[str], start: int, end: int, fence_end: dict[int, int]
) -> list[Block]:
    """Split lines start..end into paragraphs at blank lines, keeping each fence one block.

    A fence never crosses a section boundary: a heading inside a fence is not a heading.
    """
    blocks: list[Block] = []
    index = start
    while index <= end:
        if index in fence_end:
            closed = min(fence_end[index], end)
            blocks.append((index, closed))
            index = closed + 1
            continue
        line = lines[index]
        if not line or line.isspace():
            index += 1
            continue
        first = index
        while index < end and index + 1 not in fence_end:
            following = lines[index + 1]
            if not following or following.isspace():
                break
            index += 1
        blocks.append((first, index))
        index += 1
    return blocks
