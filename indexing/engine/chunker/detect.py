"""Format detection from a document's first lines, by regex scans of their UTF-8 text."""

from indexing.engine.chunker.code import DEFINITION_LINE
from indexing.engine.chunker.document import DocumentFormat
from indexing.engine.chunker.line_patterns import LINE_SPACE as _SPACE
from indexing.engine.chunker.line_patterns import LinePattern
from indexing.engine.chunker.lines import Lines

SAMPLE_LINES = 2000
_HEADING = LinePattern(r" {0,3}#{1,6}[ \t]+\S")
_SETEXT_HEADING = LinePattern(rf"{_SPACE}*\S[^\n]*\n {{0,3}}(?:={{3,}}|-{{3,}})[ \t\r]*$")
"""A non-blank line with an underline of `===` or `---` below it."""
_FENCE = LinePattern(r" {0,3}(?:```|~~~)")
_NONBLANK_LINE = LinePattern(rf"{_SPACE}*\S")
_CODE_SHAPED_LINE = LinePattern(
    rf"{_SPACE}+\S"  # indented
    rf"|(?:import|package|use){_SPACE}|from{_SPACE}+\S+{_SPACE}+import{_SPACE}|#include|@|//"
    rf"|[^\n]*[;{{}}()\[\]:,]{_SPACE}*$"  # ends in punctuation
)
"""A non-blank line shaped like code."""


def detect_line_format(lines: Lines) -> DocumentFormat:
    """Tell Markdown, source code and plain text apart by their first SAMPLE_LINES lines.

    Code needs a top-level definition, no Markdown fences and mostly code-shaped lines
    (indented, or ending in punctuation such as `{`, `;`, `:`), because a Python comment
    looks like a Markdown heading. Each test is one regex scan of the sample at C speed.
    """
    fences = _FENCE.count(lines, SAMPLE_LINES)
    if not fences and DEFINITION_LINE.found(lines, SAMPLE_LINES):
        code_shaped = _CODE_SHAPED_LINE.count(lines, SAMPLE_LINES)
        if code_shaped * 2 >= _NONBLANK_LINE.count(lines, SAMPLE_LINES):
            return DocumentFormat.CODE
    if (
        fences >= 2
        or _HEADING.found(lines, SAMPLE_LINES)
        or _SETEXT_HEADING.found(lines, SAMPLE_LINES)
    ):
        return DocumentFormat.MARKDOWN
    return DocumentFormat.TEXT
