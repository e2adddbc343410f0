"""Server-rendered SVG charts for the report pages: readable without JavaScript or a CDN.

Every text in a chart goes through `format_html`, so names from clients and upstreams
are escaped. Each chart carries a `<title>` and an `aria-label` for screen readers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from indexing.reports.chart_labels import GAP, label_column, label_lines

RECEIVED = "#79aec8"
DELIVERED = "#417690"
Formatter = Callable[[float], str]


def plain(value: float) -> str:
    return f"{value:,.0f}"


def size(value: float) -> str:
    """Bytes as B, KB, MB or GB (1024-based), short enough for an axis."""
    for unit in ("B", "KB", "MB"):
        if abs(value) < 1024:
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} GB"


@dataclass(frozen=True)
class Series:
    """One named, coloured row of values, one value per category."""

    name: str
    values: Sequence[float]
    color: str


TWO_LINE_ROW = 30
"""The least height of a row whose name takes two lines of the 12-unit font."""


def _n(value: float) -> str:
    """A coordinate with one decimal (format_html escapes arguments to text first)."""
    return f"{value:.1f}"


def _svg(width: int, height: int, title: str, body: SafeString, css_class: str) -> SafeString:
    return format_html(
        # Drawn at its own size, shrunk where the page is narrower (`svg.chart` in _styles.html).
        '<svg class="chart {}" role="img" aria-label="{}" viewBox="0 0 {} {}" width="{}" '
        'xmlns="http://www.w3.org/2000/svg" '
        'font-family="sans-serif" font-size="12"><title>{}</title>{}</svg>',
        css_class,
        title,
        width,
        height,
        width,
        title,
        body,
    )


def _legend(series: Sequence[Series], x: int, y: int) -> SafeString:
    return format_html_join(
        "",
        '<rect x="{}" y="{}" width="10" height="10" fill="{}"/>'
        '<text x="{}" y="{}" fill="currentColor">{}</text>',
        ((x + n * 150, y, s.color, x + n * 150 + 14, y + 9, s.name) for n, s in enumerate(series)),
    )


def bar_chart(
    rows: Sequence[tuple[str, float]],
    *,
    title: str,
    formatter: Formatter = plain,
    color: str = DELIVERED,
    width: int = 640,
) -> SafeString:
    """Horizontal bars, one per (name, value), with the value printed beside each bar."""
    return paired_bar_chart(
        [(name, (value,)) for name, value in rows],
        series=[Series(title, [], color)],
        title=title,
        formatter=formatter,
        width=width,
        legend=False,
    )


def paired_bar_chart(
    rows: Sequence[tuple[str, Sequence[float]]],
    *,
    series: Sequence[Series],
    title: str,
    formatter: Formatter = plain,
    width: int = 640,
    legend: bool = True,
) -> SafeString:
    """Horizontal bars in groups: one group per row name, one bar per series."""
    value_width, bar_height, gap = 90, 16, 10
    # Long names widen the label column up to a point, then take two lines (cut if need be).
    label_width = round(label_column([name for name, _ in rows], width))
    top = 22 if legend else 6
    labels = [label_lines(name, label_width - GAP) for name, _ in rows]
    group_height = bar_height * len(series) + gap
    if any(len(lines) > 1 for lines in labels):
        group_height = max(group_height, TWO_LINE_ROW)
    height = top + max(1, len(rows)) * group_height
    largest = max((v for _, values in rows for v in values), default=0) or 1
    scale = (width - label_width - value_width) / largest
    parts = [_legend(series, label_width, 4)] if legend else []
    if not rows:
        parts.append(format_html('<text x="{}" y="{}">No data yet.</text>', label_width, top + 12))
    for n, ((name, values), lines) in enumerate(zip(rows, labels, strict=True)):
        y = top + n * group_height
        parts.append(
            _row_label(name, lines, label_width - GAP + 4, y + bar_height * len(series) / 2)
        )
        for k, (value, line) in enumerate(zip(values, series, strict=False)):
            bar_y, bar_width = y + k * bar_height, max(value * scale, 1 if value else 0)
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}">'
                    "<title>{}: {}</title></rect>"
                    '<text x="{}" y="{}" fill="currentColor">{}</text>',
                    label_width,
                    bar_y,
                    _n(bar_width),
                    bar_height - 2,
                    line.color,
                    line.name,
                    formatter(value),
                    _n(label_width + bar_width + 4),
                    bar_y + bar_height - 4,
                    formatter(value),
                )
            )
    return _svg(width, height, title, SafeString("".join(parts)), "bar-chart")


def _row_label(name: str, lines: tuple[str, ...], x: int, middle: float) -> SafeString:
    """A row's name ending at `x`, its lines centred on `middle`, the whole name its tooltip."""
    if len(lines) == 1:
        return format_html(
            '<text x="{}" y="{}" text-anchor="end" fill="currentColor">{}<title>{}</title></text>',
            x,
            _n(middle + 4),
            lines[0],
            name,
        )
    spans = format_html_join(
        "",
        '<tspan x="{}" y="{}">{}</tspan>',
        ((x, _n(middle - 3.5 + 13 * k), line) for k, line in enumerate(lines)),
    )
    return format_html(
        '<text text-anchor="end" fill="currentColor">{}<title>{}</title></text>', spans, name
    )


def column_chart(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    title: str,
    formatter: Formatter = plain,
    width: int = 720,
    height: int = 240,
) -> SafeString:
    """Vertical columns over time: one slot per category, side by side per series."""
    left, bottom, top = 70, 36, 24
    plot_width, plot_height = width - left - 10, height - top - bottom
    largest = max((v for s in series for v in s.values), default=0) or 1
    slot = plot_width / max(1, len(categories))
    column = max(1.0, slot * 0.8 / max(1, len(series)))
    parts = [_legend(series, left, 4)]
    for fraction in (0, 0.5, 1):
        y = top + plot_height * (1 - fraction)
        parts.append(
            format_html(
                '<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#ccc"/>'
                '<text x="{}" y="{}" text-anchor="end" fill="currentColor">{}</text>',
                left,
                width - 10,
                _n(y),
                _n(y),
                left - 4,
                _n(y + 4),
                formatter(largest * fraction),
            )
        )
    every = max(1, len(categories) // 8)
    for n, category in enumerate(categories):
        x = left + n * slot + slot * 0.1
        for k, line in enumerate(series):
            value = line.values[n]
            bar_height = plot_height * value / largest
            parts.append(
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="{}">'
                    "<title>{} {}: {}</title></rect>",
                    _n(x + k * column),
                    _n(top + plot_height - bar_height),
                    _n(column),
                    _n(bar_height),
                    line.color,
                    category,
                    line.name,
                    formatter(value),
                )
            )
        if n % every == 0:
            parts.append(
                format_html(
                    '<text x="{}" y="{}" text-anchor="middle" fill="currentColor">{}</text>',
                    _n(left + n * slot + slot / 2),
                    height - bottom + 14,
                    category[5:] if len(category) == 10 else category,
                )
            )
    return _svg(width, height, title, SafeString("".join(parts)), "column-chart")


def received_vs_delivered(received: float, delivered: float, *, title: str) -> SafeString:
    """Two bars: bytes that came from upstreams and bytes the client got."""
    return paired_bar_chart(
        [("bytes", (received, delivered))],
        series=[
            Series("received from upstreams", [], RECEIVED),
            Series("delivered to the client", [], DELIVERED),
        ],
        title=title,
        formatter=size,
    )
