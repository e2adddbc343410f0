"""Logs and plain text: paragraphs when there are any, else overlapping windows of lines.

Text laid out like a rendered man page (ALL-CAPS section headings at column 0, such as
`NAME` or `DESCRIPTION`, and short indented subsection headings) has its chunks titled by
the headings they sit under, e.g. `EXPANSION > Parameter Expansion`.
"""

from collections.abc import Iterator

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.line_patterns import LinePattern
from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.packing import pack_lines
from indexing.engine.text import one_line

WINDOW_OVERLAP_LINES = 2
SAMPLE_LINES = 2000
MIN_SECTIONS = 2
"""Headings title chunks only when the first SAMPLE_LINES lines hold this many sections."""
_HEADING = LinePattern(
    r"(?:(?P<section>[A-Z][A-Z0-9 ,&/()'_-]{0,58}[A-Z0-9)])"
    r"|(?P<indent> {2,4})(?P<subsection>[A-Z][A-Za-z0-9 ,&/()'_-]{0,58}[A-Za-z0-9)])[^\S\n]*"
    r")$"
)
"""An ALL-CAPS section heading, or an indented line that may be a subsection heading."""


def chunk_text(lines: Lines) -> Iterator[Chunk]:
    """Chunk text by paragraph; runs too long for one chunk become overlapping windows.

    Each chunk is titled by its first line, which for logs is usually the most telling, or
    by the section headings above it when the text has man-page-like headings. Chunks are
    made as they are taken.
    """
    headings = section_titles(lines)
    position, current = 0, ""
    for chunk in pack_lines(lines, 0, len(lines) - 1, "", overlap=WINDOW_OVERLAP_LINES):
        while position < len(headings) and headings[position][0] < chunk.start_line:
            current = headings[position][1]
            position += 1
        first_line = lines.span(chunk.start_line, chunk.start_line, chunk.part)
        title = current or one_line(first_line[:400], 80)
        yield Chunk(title, chunk.start_line, chunk.end_line, chunk.part)


def section_titles(lines: Lines) -> list[tuple[int, str]]:
    """Return (0-based line index, `SECTION > Subsection`) where each heading starts.

    Empty unless the text looks like a rendered man page (see MIN_SECTIONS).
    """
    sample = _HEADING.matches(lines, SAMPLE_LINES)
    if sum(1 for _, match in sample if match["section"]) < MIN_SECTIONS:
        return []
    titles: list[tuple[int, str]] = []
    section = ""
    for index, match in _HEADING.matches(lines):
        if match["section"]:
            section = match["section"].decode()
            titles.append((index, section))
        elif section and _has_subsection_layout(lines, index, len(match["indent"])):
            titles.append((index, f"{section} > {match['subsection'].decode()}"))
    return titles


def _has_subsection_layout(lines: Lines, index: int, indent: int) -> bool:
    """True when line `index` follows a blank line and sits over a more indented body."""
    if index > 0 and lines[index - 1].strip():
        return False
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return len(following) - len(following.lstrip(" ")) > indent and bool(following.strip())
