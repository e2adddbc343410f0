"""The text a client receives instead of a compressed response: preview, Contents, hints."""

import json

from indexing.engine.chunker import CONTENTS_BYTES, Lines, OutlineEntry
from indexing.engine.read import MAX_READ_BYTES
from indexing.engine.text import utf8_size

PREVIEW_BYTES = 2048


def render_placeholder(
    *,
    label: str,
    original_bytes: int,
    lines: Lines,
    outline: list[OutlineEntry],
    search_tool: str,
    read_tool: str,
    pretty_from: int | None = None,
) -> str:
    """Render the placeholder in the shape of SPEC §2. `pretty_from` is the line count of
    minified JSON served pretty-printed: said in the first line, with a hint to read it
    as sent."""
    quoted = json.dumps(label, ensure_ascii=False)
    preview, marker = render_preview(lines)
    pretty = "" if pretty_from is None else f", pretty-printed from {_lines(pretty_from)}"
    sections = [
        f"[Response compressed — {original_bytes} bytes, {len(lines)} lines, "
        f"indexed as {quoted}{pretty}]",
        f"{preview}\n{marker}" if preview else marker,
    ]
    contents = render_contents(outline)
    if contents:
        sections.append("## Contents\n" + "\n".join(contents))
    sections.append(
        f"Read all of it: {read_tool}(label={quoted}, limit={len(lines)}){_pages_note(lines)}\n"
        f'Read a range:   {read_tool}(label={quoted}, offset="<line>", limit=<lines>)\n'
        f'Search it:      {search_tool}(queries=["<terms>"], source={quoted})'
        + (
            ""
            if pretty_from is None
            else f"\nRead as sent:   {read_tool}(label={quoted}, raw=true)"
        )
    )
    return "\n\n".join(sections)


def _pages_note(lines: Lines) -> str:
    """How many reads the whole text takes, when one read (at most ~64 KB) cannot hold it."""
    if not lines:
        return ""
    numbered = lines.size(0, len(lines) - 1) + len(lines) * (len(str(len(lines))) + 2)
    reads = -(-numbered // MAX_READ_BYTES)
    if reads < 2:
        return ""
    return (
        f"  (about {reads} calls: each returns at most {MAX_READ_BYTES // 1024} KB "
        "and ends with the offset to continue from)"
    )


def _lines(count: int) -> str:
    return "1 line" if count == 1 else f"{count} lines"


def render_preview(lines: Lines) -> tuple[str, str]:
    """Return the first ~PREVIEW_BYTES of the document cut at a line boundary, and its marker.

    A first line longer than the budget is cut at a character boundary and says so.
    """
    used = 0
    shown = 0
    while shown < len(lines):
        size = lines.size(shown, shown)  # measured, not read (the text may be packed)
        if used + size > PREVIEW_BYTES:
            break
        used += size
        shown += 1
    if shown == 0 and lines:
        head = lines.piece(0, 0, PREVIEW_BYTES)[1].encode("utf-8")[:PREVIEW_BYTES]
        return head.decode(
            "utf-8", "ignore"
        ), f"[… preview ends at line 1 of {len(lines)} (cut mid-line)]"
    preview = lines.joined(0, shown - 1)
    return preview, f"[… preview ends at line {shown} of {len(lines)}]"


def render_contents(outline: list[OutlineEntry]) -> list[str]:
    """Render the outline as `- [L42] Title` items within CONTENTS_BYTES.

    The deepest levels are dropped first; what still does not fit is cut with a note.
    Levels are rendered from the top down only while they fit, so a document with
    thousands of headings costs no more than its first levels. A document headed by a
    lone title (one top entry, first) keeps it, and its sections count as the top level.
    """
    if not outline:
        return []
    top = min(entry.depth for entry in outline)
    rest = outline[1:]
    if outline[0].depth == top and rest and all(entry.depth > top for entry in rest):
        title = outline[0].contents_item(top)
        return [title, *_levels(rest, top, CONTENTS_BYTES - utf8_size(title) - 1)]
    return _levels(outline, top, CONTENTS_BYTES)


def _levels(outline: list[OutlineEntry], indent_from: int, budget: int) -> list[str]:
    """The outline's levels from its top down, while each fits whole in `budget` bytes
    (items indented from depth `indent_from`); a top level too big is cut with a note."""
    top = min(entry.depth for entry in outline)
    rendered: dict[int, str] = {}  # outline index -> item
    used, kept_depth = 0, top
    for depth in sorted({entry.depth for entry in outline}):
        level = [index for index, entry in enumerate(outline) if entry.depth == depth]
        size = 0
        for index in level:
            rendered[index] = outline[index].contents_item(indent_from)
            size += utf8_size(rendered[index]) + 1
            if used + size > budget:
                break
        if used + size > budget:
            if depth == top:
                return _cut(outline, rendered, top, indent_from, budget)
            break
        used, kept_depth = used + size, depth
    return [rendered[index] for index, entry in enumerate(outline) if entry.depth <= kept_depth]


def _cut(
    outline: list[OutlineEntry], rendered: dict[int, str], top: int, indent_from: int, budget: int
) -> list[str]:
    """The top level alone is too big: its first items, then a note of how many are left."""
    level = [index for index, entry in enumerate(outline) if entry.depth == top]
    kept: list[str] = []
    used = 0
    for index in level:
        item = rendered.get(index) or outline[index].contents_item(indent_from)
        used += utf8_size(item) + 1
        if used > budget - 64:  # leave room for the note
            break
        kept.append(item)
    indent = "  " * (top - indent_from)
    return [
        *kept,
        f"{indent}- … {len(level) - len(kept)} more entries (search or read to find them)",
    ]
