"""Logs and plain text: paragraphs when there are any, else overlapping windows of lines.

Text laid out like a rendered man page (ALL-CAPS section headings at column 0, such as
`NAME` or `DESCRIPTION`, and short indented subsection headings) has its chunks titled by
the headings they sit under, e.g. `EXPANSION > Parameter Expansion`.
"""

import re
from dataclasses import replace

from indexing.chunker.document import Chunk
from indexing.chunker.sizing import pack_blocks, paragraphs
from indexing.text import LINE_PART_CHARS, one_line

WINDOW_OVERLAP_LINES = 2
SAMPLE_LINES = 2000
MIN_SECTIONS = 2
"""Headings title chunks only when the first SAMPLE_LINES lines hold this many sections."""
_SECTION = re.compile(r"[A-Z][A-Z0-9 ,&/()'_-]{0,58}[A-Z0-9)]")
_SUBSECTION = re.compile(r"( {2,4})[A-Z][A-Za-z0-9 ,&/()'_-]{0,58}[A-Za-z0-9)]")


def chunk_text(lines: list[str]) -> list[Chunk]:
    """Chunk text by paragraph; runs too long for one chunk become overlapping windows.

    Each chunk is titled by its first line, which for logs is usually the most telling, or
    by the section headings above it when the text has man-page-like headings.
    """
    blocks = paragraphs(lines, 0, len(lines) - 1)
    chunks = pack_blocks(lines, blocks, "", overlap=WINDOW_OVERLAP_LINES)
    headings = section_titles(lines)
    titled: list[Chunk] = []
    position, current = 0, ""
    for chunk in chunks:
        while position < len(headings) and headings[position][0] < chunk.start_line:
            current = headings[position][1]
            position += 1
        first_line = lines[chunk.start_line - 1]
        if chunk.part is not None:
            first_line = first_line[(chunk.part - 1) * LINE_PART_CHARS :]
        title = current or one_line(first_line[:400], 80)
        titled.append(replace(chunk, title=title))
    return titled


def section_titles(lines: list[str]) -> list[tuple[int, str]]:
    """Return (0-based line index, `SECTION > Subsection`) where each heading starts.

    Empty unless the text looks like a rendered man page (see MIN_SECTIONS).
    """
    sample = sum(1 for line in lines[:SAMPLE_LINES] if _SECTION.fullmatch(line))
    if sample < MIN_SECTIONS:
        return []
    titles: list[tuple[int, str]] = []
    section = ""
    for index, line in enumerate(lines):
        first = line[:1]
        if "A" <= first <= "Z":
            if _SECTION.fullmatch(line):
                section = line.strip()
                titles.append((index, section))
        elif first == " " and section and (heading := _subsection(lines, index)):
            titles.append((index, f"{section} > {heading}"))
    return titles


def _subsection(lines: list[str], index: int) -> str | None:
    """The heading text when line `index` is an indented heading over a more indented body."""
    match = _SUBSECTION.fullmatch(lines[index].rstrip())
    if match is None or (index > 0 and lines[index - 1].strip()):
        return None
    following = lines[index + 1] if index + 1 < len(lines) else ""
    indent = len(match.group(1))
    if len(following) - len(following.lstrip(" ")) <= indent or not following.strip():
        return None
    return match.group(0).strip()
