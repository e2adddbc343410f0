"""The text a client receives instead of a compressed response: preview, Contents, hints."""

import json

from indexing.chunker import OutlineEntry
from indexing.text import one_line, utf8_size

PREVIEW_BYTES = 2048
CONTENTS_BYTES = 2048


def render_placeholder(
    *,
    label: str,
    original_bytes: int,
    lines: list[str],
    outline: list[OutlineEntry],
    search_tool: str,
    read_tool: str,
) -> str:
    """Render the placeholder in the shape of SPEC §2."""
    quoted = json.dumps(label, ensure_ascii=False)
    preview, marker = render_preview(lines)
    sections = [
        f"[Response compressed — {original_bytes} bytes, {len(lines)} lines, indexed as {quoted}]",
        f"{preview}\n{marker}" if preview else marker,
    ]
    contents = render_contents(outline)
    if contents:
        sections.append("## Contents\n" + "\n".join(contents))
    sections.append(
        f"Read all of it: {read_tool}(label={quoted}, limit={len(lines)})\n"
        f'Read a range:   {read_tool}(label={quoted}, offset="<line>", limit=<lines>)\n'
        f'Search it:      {search_tool}(queries=["<terms>"], source={quoted})'
    )
    return "\n\n".join(sections)


def render_preview(lines: list[str]) -> tuple[str, str]:
    """Return the first ~PREVIEW_BYTES of the document cut at a line boundary, and its marker.

    A first line longer than the budget is cut at a character boundary and says so.
    """
    used = 0
    shown = 0
    for line in lines:
        size = utf8_size(line) + 1
        if used + size > PREVIEW_BYTES:
            break
        used += size
        shown += 1
    if shown == 0 and lines:
        head = lines[0].encode("utf-8")[:PREVIEW_BYTES].decode("utf-8", "ignore")
        return head, f"[… preview ends at line 1 of {len(lines)} (cut mid-line)]"
    preview = "\n".join(lines[:shown])
    return preview, f"[… preview ends at line {shown} of {len(lines)}]"


def render_contents(outline: list[OutlineEntry]) -> list[str]:
    """Render the outline as `- [L42] Title` items within CONTENTS_BYTES.

    The deepest levels are dropped first; what still does not fit is cut with a note.
    """
    entries = outline
    items = _items(entries)
    while entries and _size(items) > CONTENTS_BYTES:
        deepest = max(entry.depth for entry in entries)
        if deepest == min(entry.depth for entry in entries):
            break
        entries = [entry for entry in entries if entry.depth < deepest]
        items = _items(entries)
    if _size(items) <= CONTENTS_BYTES:
        return items
    kept: list[str] = []
    used = 0
    for item in items:
        used += utf8_size(item) + 1
        if used > CONTENTS_BYTES - 64:  # leave room for the note
            break
        kept.append(item)
    return [*kept, f"- … {len(items) - len(kept)} more entries (search or read to find them)"]


def _items(entries: list[OutlineEntry]) -> list[str]:
    """Render entries as list items, indented two spaces per level below the top one."""
    top = min((entry.depth for entry in entries), default=0)
    return [
        f"{'  ' * (entry.depth - top)}- [L{entry.line}] {one_line(entry.title, 100)}"
        for entry in entries
    ]


def _size(items: list[str]) -> int:
    """Return the UTF-8 size of the rendered items, one per line."""
    return sum(utf8_size(item) + 1 for item in items)
