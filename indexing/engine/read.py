"""IndexRead: a document's lines, numbered, in pages of at most ~64 KB."""

from indexing.engine.arguments import parse_flag, parse_label, parse_limit, parse_offset
from indexing.engine.errors import IndexToolError
from indexing.engine.store import LineSlice, SessionStore
from indexing.engine.store_pages import line_slices
from indexing.engine.text import LINE_PART_CHARS, part_count, utf8_size

DEFAULT_READ_LINES = 200
MAX_READ_BYTES = 64 * 1024
CARRIAGE_RETURN_NOTE = (
    "[lines are split at \\n only: this text's \\r characters (\\r\\n or lone \\r line ends)"
    " are kept, as sent, in the lines' text]"
)
"""Heads every page of a text holding `\\r`: lines are split at `\\n` only."""
FINAL_NEWLINE_NOTE = "[the text ends with a newline]"
"""Follows the last line of a text that ends with `\\n` (one that does not ends without it)."""


def format_read(
    store: SessionStore,
    label: object,
    offset: object = None,
    limit: object = None,
    raw: object = None,
) -> str:
    """Return up to `limit` whole lines from `offset` as `N: text` (`N-M: text` for parts).

    Ends with `[173 more lines — continue with offset="61"]` when lines remain. Lines are
    split at `\\n` only and served exactly as they are in the text; notes in brackets say
    what the numbered lines cannot (`CARRIAGE_RETURN_NOTE`, `FINAL_NEWLINE_NOTE`), so that
    joining every page's lines by the rule docs/gateway.md states gives the text back byte
    for byte.
    `raw` reads the text as sent where the lines served are pretty-printed JSON.

    Raises:
        IndexToolError: bad arguments, an unknown label, or an evicted one.
    """
    name = parse_label(label)
    line, part = parse_offset(offset)
    count = parse_limit(limit, default=DEFAULT_READ_LINES)
    lines = store.lines(name, raw=parse_flag(raw, "raw"))
    line_count = len(lines)
    if line_count == 0:
        return f'"{name}" is empty.'
    if line > line_count:
        raise IndexToolError(f'offset "{line}" is past the end: "{name}" has {line_count} lines')
    last = min(line_count, line + count - 1)
    slices = line_slices(
        lines, line, last, skip_chars=(part - 1) * LINE_PART_CHARS, max_chars=MAX_READ_BYTES
    )
    _check_part(slices[0], part)
    rendered, resume = _render(slices)
    if resume is None and slices[-1].number < line_count:
        resume = (slices[-1].number + 1, 1)
    if lines.carriage_return:
        rendered.insert(0, CARRIAGE_RETURN_NOTE)
    if resume is not None:
        rendered.append(_footer(line_count, *resume))
    elif lines.ends_with_newline():
        rendered.append(FINAL_NEWLINE_NOTE)
    return "\n".join(rendered)


def _check_part(first: LineSlice, part: int) -> None:
    """Refuse a part number beyond the parts of the requested line."""
    parts = part_count(first.length)
    if part > parts:
        shape = "is not split into parts" if parts == 1 else f"has only {parts} parts"
        raise IndexToolError(
            f'offset "{first.number}-{part}" is invalid: line {first.number} {shape}'
        )


def _render(slices: list[LineSlice]) -> tuple[list[str], tuple[int, int] | None]:
    """Number the pieces of each line until the byte budget is spent.

    Returns the rendered lines and, when the budget ran out, the (line, part) to resume at.
    """
    rendered: list[str] = []
    used = 0
    for piece in slices:
        parts = part_count(piece.length)
        for part in range(piece.first_char // LINE_PART_CHARS + 1, parts + 1):
            begin = (part - 1) * LINE_PART_CHARS - piece.first_char
            text = piece.text[begin : begin + LINE_PART_CHARS]
            expected = min(LINE_PART_CHARS, piece.length - (part - 1) * LINE_PART_CHARS)
            tag = str(piece.number) if parts == 1 else f"{piece.number}-{part}"
            entry = f"{tag}: {text}" if text else f"{tag}:"
            size = utf8_size(entry) + 1
            if len(text) < expected or (rendered and used + size > MAX_READ_BYTES):
                return rendered, (piece.number, part)
            rendered.append(entry)
            used += size
    return rendered, None


def _footer(line_count: int, line: int, part: int) -> str:
    """Render the continuation footer, e.g. `[173 more lines — continue with offset="61"]`."""
    remaining = line_count - line + 1
    offset = str(line) if part == 1 else f"{line}-{part}"
    noun = "line" if remaining == 1 else "lines"
    return f'[{remaining} more {noun} — continue with offset="{offset}"]'
