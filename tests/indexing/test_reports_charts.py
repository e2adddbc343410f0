"""SVG charts: well-formed, escaped, readable without JavaScript."""

import xml.etree.ElementTree as ET

import pytest

from indexing.reports import chart_labels, charts

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(str(svg))


def test_a_bar_chart_is_valid_svg_with_a_title_and_printed_values():
    root = parse(charts.bar_chart([("files__read", 12), ("IndexSearch", 3)], title="Busiest"))
    assert root.tag == f"{SVG}svg" and root.get("aria-label") == "Busiest"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"files__read", "IndexSearch", "12", "3"} <= set(texts)
    widths = [float(r.get("width")) for r in root.iter(f"{SVG}rect")]
    assert widths[0] == pytest.approx(widths[1] * 4)


def test_names_in_charts_are_escaped():
    svg = str(charts.bar_chart([("<script>alert(1)</script>", 1)], title='a "b" & <c>'))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert parse(svg).find(f"{SVG}title").text == 'a "b" & <c>'


def test_empty_charts_say_there_is_no_data():
    root = parse(charts.bar_chart([], title="Nothing"))
    assert "No data yet." in [t.text for t in root.iter(f"{SVG}text")]
    parse(charts.column_chart([], [], title="Nothing either"))


def test_a_column_chart_draws_one_column_per_day_and_series():
    series = [
        charts.Series("received", [4096, 0, 1024], charts.RECEIVED),
        charts.Series("delivered", [512, 0, 256], charts.DELIVERED),
    ]
    days = ["2026-03-01", "2026-03-02", "2026-03-03"]
    root = parse(charts.column_chart(days, series, title="Days", formatter=charts.size))
    columns = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(columns) == 6
    assert columns[0].find(f"{SVG}title").text == "2026-03-01 received: 4.0 KB"


@pytest.mark.parametrize(
    ("size", "shown"),
    [(0, "0 B"), (1023, "1,023 B"), (2048, "2.0 KB"), (5 * 2**20, "5.0 MB"), (3 * 2**30, "3.0 GB")],
)
def test_sizes_are_shown_in_binary_units(size, shown):
    assert charts.size(size) == shown


def shown_labels(svg: str) -> dict[str, str]:
    """Each row label's tooltip (the whole name) -> the text drawn, lines joined by '|'."""
    labels = {}
    for text in parse(svg).iter(f"{SVG}text"):
        title = text.find(f"{SVG}title")
        if title is not None:
            lines = [span.text for span in text.iter(f"{SVG}tspan")] or [text.text]
            labels[title.text] = "|".join(lines)
    return labels


def test_long_tool_names_keep_their_tool_part_visible_on_a_second_line():
    upstream = "remote-http-with-a-long-name"
    rows = [(f"{upstream}__get_current_weather_forecast", 40), (f"{upstream}__list_calendars", 30)]
    rows += [("IndexSearch", 5)]
    labels = shown_labels(charts.bar_chart(rows, title="Busiest tools (calls)"))
    assert labels == {
        f"{upstream}__get_current_weather_forecast": f"{upstream}__|get_current_weather_forecast",
        f"{upstream}__list_calendars": f"{upstream}__|list_calendars",
        "IndexSearch": "IndexSearch",
    }


def test_a_label_too_long_even_for_two_lines_is_cut_and_whole_in_its_tooltip():
    name = "w" * 40 + "__" + "get_" * 30
    svg = charts.bar_chart([(name, 1)], title="Busiest")
    first, second = shown_labels(svg)[name].split("|")
    assert first.endswith("…") and second.startswith("get_get_") and second.endswith("…")
    # Each line fits the label column, however wide the browser's sans-serif font draws it.
    column = float(next(r for r in parse(svg).iter(f"{SVG}rect")).get("x"))
    assert max(chart_labels.text_width(first), chart_labels.text_width(second)) <= column - 6
