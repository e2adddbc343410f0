"""Source code: one section per top-level definition, with its decorators and comments."""

import re
from collections.abc import Iterator

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.document import OutlineEntry
from indexing.engine.chunker.line_patterns import LINE_SPACE as _SPACE
from indexing.engine.chunker.line_patterns import LinePattern
from indexing.engine.chunker.lines import Lines
from indexing.engine.chunker.packing import pack_lines
from indexing.engine.text import one_line

_DEFINITION = (
    r"(?:"
    rf"(?:async{_SPACE}+)?def{_SPACE}+\w"  # Python
    rf"|class{_SPACE}+\w"  # Python, JS, TS
    rf"|(?:export{_SPACE}+)?(?:default{_SPACE}+)?(?:declare{_SPACE}+)?(?:abstract{_SPACE}+)?"
    rf"(?:async{_SPACE}+)?(?:function\*?|class|interface|enum|type|namespace){_SPACE}+\w"  # JS / TS
    rf"|(?:export{_SPACE}+)?(?:const|let|var){_SPACE}+\w+{_SPACE}*(?::[^=\n]+)?={_SPACE}*"
    rf"(?:async{_SPACE}*)?(?:\(|function\b|\w+{_SPACE}*=>)"
    rf"|func{_SPACE}+(?:\([^)\n]*\){_SPACE}*)?\w"  # Go
    rf"|type{_SPACE}+\w+{_SPACE}+(?:struct|interface)\b"  # Go
    rf"|(?:pub(?:\((?:[\w:]|{_SPACE})+\))?{_SPACE}+)?(?:async{_SPACE}+)?(?:unsafe{_SPACE}+)?"
    r"(?:fn|struct|enum|trait|impl|mod|union)\b"  # Rust
    r")"
)
DEFINITION_LINE = LinePattern(rf"(?=[a-gil-npstuv]){_DEFINITION}")
"""An unindented definition line (the lookahead skips most lines at their first letter)."""
_ATTACHED_ABOVE = re.compile(r"@|#\[|//|/\*|\s+\*|#(?!!)")
PREAMBLE_TITLE = "(module header)"


def definition_indexes(lines: Lines) -> list[int]:
    """Return the indexes of top-level (unindented) definition lines."""
    return [index for index, _ in DEFINITION_LINE.matches(lines)]


def chunk_code(lines: Lines) -> tuple[Iterator[Chunk], list[OutlineEntry]]:
    """Chunk source code by top-level definition, titled by the definition's first line:
    the chunks (made as they are taken) and the outline."""
    definitions = definition_indexes(lines)
    outline = [OutlineEntry(index + 1, _signature(lines[index])) for index in definitions]
    return _chunks(lines, definitions, [entry.title for entry in outline]), outline


def _chunks(lines: Lines, definitions: list[int], titles: list[str]) -> Iterator[Chunk]:
    starts = [
        _attach_leading_lines(lines, index, floor) for index, floor in _with_floors(definitions)
    ]
    if not starts or starts[0] > 0:
        header_end = (starts[0] if starts else len(lines)) - 1
        yield from pack_lines(lines, 0, header_end, PREAMBLE_TITLE)
    ends = [start - 1 for start in starts[1:]] + [len(lines) - 1] * bool(starts)
    for start, end, title in zip(starts, ends, titles, strict=True):
        yield from pack_lines(lines, start, end, title)


def _with_floors(definitions: list[int]) -> list[tuple[int, int]]:
    """Pair each definition with the index below which its leading lines may not reach."""
    floors = [0] + [index + 1 for index in definitions[:-1]]
    return list(zip(definitions, floors, strict=True))


def _attach_leading_lines(lines: Lines, index: int, floor: int) -> int:
    """Move a definition's start up over decorators and comments directly above it."""
    while index > floor and _ATTACHED_ABOVE.match(lines[index - 1]):
        index -= 1
    return index


def _signature(line: str) -> str:
    """Return a definition line without its trailing `{` or `:`."""
    return one_line(line.rstrip().rstrip("{:").rstrip() or line)
