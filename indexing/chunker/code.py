"""Source code: one section per top-level definition, with its decorators and comments."""

import re

from indexing.chunker.document import Chunk, OutlineEntry
from indexing.chunker.sizing import pack_blocks, paragraphs
from indexing.text import one_line

TOP_LEVEL_DEFINITION = re.compile(
    r"(?:"
    r"(?:async\s+)?def\s+\w"  # Python
    r"|class\s+\w"  # Python, JS, TS
    r"|(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:function\*?|class|interface|enum|type|namespace)\s+\w"  # JS / TS
    r"|(?:export\s+)?(?:const|let|var)\s+\w+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\(|function\b|\w+\s*=>)"
    r"|func\s+(?:\([^)]*\)\s*)?\w"  # Go
    r"|type\s+\w+\s+(?:struct|interface)\b"  # Go
    r"|(?:pub(?:\([\w\s:]+\))?\s+)?(?:async\s+)?(?:unsafe\s+)?"
    r"(?:fn|struct|enum|trait|impl|mod|union)\b"  # Rust
    r")"
)
_ATTACHED_ABOVE = re.compile(r"@|#\[|//|/\*|\s+\*|#(?!!)")
PREAMBLE_TITLE = "(module header)"


def definition_indexes(lines: list[str]) -> list[int]:
    """Return the indexes of top-level (unindented) definition lines."""
    return [index for index, line in enumerate(lines) if TOP_LEVEL_DEFINITION.match(line)]


def chunk_code(lines: list[str]) -> tuple[list[Chunk], list[OutlineEntry]]:
    """Chunk source code by top-level definition, titled by the definition's first line."""
    definitions = definition_indexes(lines)
    starts = [
        _attach_leading_lines(lines, index, floor) for index, floor in _with_floors(definitions)
    ]
    chunks: list[Chunk] = []
    if not starts or starts[0] > 0:
        header_end = (starts[0] if starts else len(lines)) - 1
        chunks.extend(pack_blocks(lines, paragraphs(lines, 0, header_end), PREAMBLE_TITLE))
    for position, (start, definition) in enumerate(zip(starts, definitions, strict=True)):
        end = starts[position + 1] - 1 if position + 1 < len(starts) else len(lines) - 1
        title = _signature(lines[definition])
        chunks.extend(pack_blocks(lines, paragraphs(lines, start, end), title))
    outline = [OutlineEntry(index + 1, _signature(lines[index])) for index in definitions]
    return chunks, outline


def _with_floors(definitions: list[int]) -> list[tuple[int, int]]:
    """Pair each definition with the index below which its leading lines may not reach."""
    floors = [0] + [index + 1 for index in definitions[:-1]]
    return list(zip(definitions, floors, strict=True))


def _attach_leading_lines(lines: list[str], index: int, floor: int) -> int:
    """Move a definition's start up over decorators and comments directly above it."""
    while index > floor and _ATTACHED_ABOVE.match(lines[index - 1]):
        index -= 1
    return index


def _signature(line: str) -> str:
    """Return a definition line without its trailing `{` or `:`."""
    return one_line(line.rstrip().rstrip("{:").rstrip() or line)
