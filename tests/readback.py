"""Joining IndexRead pages back into the text, by the rule docs/gateway.md states."""

import re

from indexing.engine.read import FINAL_NEWLINE_NOTE

_ENTRY = re.compile(r"(?P<line>[0-9]+)(?:-[0-9]+)?:(?: (?P<text>.*))?", re.S)


def join_read(pages: list[str]) -> str:
    """Each `N: text` or `N-M: text` entry's text (after `: `; `N:` is an empty line), the
    parts of a line joined as they are, lines joined with `\\n`, and a final `\\n` when a
    page says FINAL_NEWLINE_NOTE. Notes in brackets are not text; pages split at `\\n` only."""
    lines: dict[int, str] = {}
    final_newline = False
    for page in pages:
        for entry in page.split("\n"):
            final_newline = final_newline or entry == FINAL_NEWLINE_NOTE
            match = _ENTRY.fullmatch(entry)
            if match is not None:
                number = int(match["line"])
                lines[number] = lines.get(number, "") + (match["text"] or "")
    return "\n".join(lines[number] for number in sorted(lines)) + "\n" * final_newline


def footer_offset(page: str) -> str | None:
    """The offset a page's `[… more lines — continue with offset="…"]` footer names."""
    match = re.search(r'continue with offset="([0-9-]+)"\]$', page)
    return None if match is None else match[1]
