"""Row names for the charts' label column: whole where they fit, else on two lines.

A tool name `<upstream>__<tool>` is split after its upstream, so that every tool of one
long-named upstream keeps a label of its own; a line that is still too long is cut with
"…". Widths are estimated generously (for wide sans-serif fonts), since the browser's
font is not known here.
"""

from __future__ import annotations

from localrouter.tool_names import TOOL_NAME_SEPARATOR

_NARROW, _SLIM, _WIDE = set("il.,:;'|!j"), set("ftrI-()[] "), set("mwMW@%…")
LEAST_COLUMN, MOST_COLUMN = 200, 0.45
"""The label column's width: at least 200 units, at most this share of the chart."""
GAP = 10
"""Units between a label's end and the bars."""


def text_width(text: str, font_size: float = 12) -> float:
    """An upper estimate of `text`'s drawn width, in the units of `font_size`."""
    ems = 0.0
    for char in text:
        if char in _NARROW:
            ems += 0.34
        elif char in _SLIM:
            ems += 0.45
        elif char in _WIDE:
            ems += 1.0
        elif char.isupper() or char.isdigit() or not char.isascii():
            ems += 0.8
        else:
            ems += 0.64
    return ems * font_size


def label_column(names: list[str], chart_width: float) -> float:
    """How wide the label column must be for the widest name (within its bounds)."""
    widest = max((text_width(name) for name in names), default=0)
    return min(max(LEAST_COLUMN, widest + GAP), chart_width * MOST_COLUMN)


def fitted(text: str, room: float) -> str:
    """`text`, cut with "…" until it fits in `room`."""
    if text_width(text) <= room:
        return text
    while text and text_width(text + "…") > room:
        text = text[:-1]
    return text + "…"


def label_lines(name: str, room: float) -> tuple[str, ...]:
    """`name` on one line when it fits in `room`, else on two (each cut to fit)."""
    if text_width(name) <= room:
        return (name,)
    head, separator, tail = name.partition(TOOL_NAME_SEPARATOR)
    if head and tail:
        return fitted(head + separator, room), fitted(tail, room)
    first = fitted(name, room).removesuffix("…")
    return first, fitted(name[len(first) :], room)
