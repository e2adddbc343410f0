"""Format detection from a document's first lines."""

import re

from indexing.chunker.code import TOP_LEVEL_DEFINITION
from indexing.chunker.document import DocumentFormat

SAMPLE_LINES = 2000
_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+\S")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(?:={3,}|-{3,})[ \t]*$")
_FENCE = re.compile(r" {0,3}(?:```|~~~)")
_CODE_LINE_START = re.compile(r"\s|import\s|from\s+\S+\s+import\s|package\s|use\s|#include|@|//")
_CODE_LINE_ENDS = (";", "{", "}", "(", ")", "[", "]", ":", ",")


def detect_line_format(lines: list[str]) -> DocumentFormat:
    """Tell Markdown, source code and plain text apart by their first SAMPLE_LINES lines.

    Code needs a top-level definition, no Markdown fences and mostly code-shaped lines
    (indented, or ending in punctuation such as `{`, `;`, `:`), because a Python comment
    looks like a Markdown heading.
    """
    sample = lines[:SAMPLE_LINES]
    nonblank = [line for line in sample if line.strip()]
    fences = sum(1 for line in sample if _FENCE.match(line))
    headings = sum(1 for line in sample if _HEADING.match(line)) + sum(
        1
        for above, line in zip(sample, sample[1:], strict=False)
        if above.strip() and _SETEXT_UNDERLINE.match(line)
    )
    has_definition = any(TOP_LEVEL_DEFINITION.match(line) for line in sample)
    code_shaped = sum(
        1
        for line in nonblank
        if _CODE_LINE_START.match(line) or line.rstrip().endswith(_CODE_LINE_ENDS)
    )
    if has_definition and not fences and code_shaped * 2 >= len(nonblank):
        return DocumentFormat.CODE
    if headings or fences >= 2:
        return DocumentFormat.MARKDOWN
    return DocumentFormat.TEXT
