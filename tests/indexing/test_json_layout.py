"""JsonLayout: the structural characters of a JSON text found outside its strings."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexing.engine.chunker import json_layout
from indexing.engine.chunker.json_layout import JsonLayout
from indexing.engine.chunker.lines import Lines


def structural_outside_strings(text: bytes) -> list[int]:
    """The reference: one character at a time, escapes followed."""
    found, inside, escaped = [], False, False
    for position, byte in enumerate(text):
        if inside:
            escaped, inside = (False, inside) if escaped else (byte == 92, byte != 34)
        elif byte == 34:
            inside = True
        elif byte in b"{}[],":
            found.append(position)
    return found


tricky = st.text(st.sampled_from('ab\\"{}[],: é\n'), max_size=10)
values = st.recursive(
    st.none() | st.integers() | tricky,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from([None, 1, 4]), st.integers(1, 40))
def test_structural_characters_are_found_outside_strings_whatever_the_blocks(
    value: object, indent: int | None, block: int
) -> None:
    text = json.dumps([value], indent=indent, ensure_ascii=False).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_layout, "SCAN_BYTES", block)
        found = json_layout._structural_positions(text).tolist()
    assert found == structural_outside_strings(text)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from([None, 1, 4, "\t"]))
def test_each_pretty_line_starts_on_the_line_of_the_text_holding_its_first_token(
    value: object, indent: int | str | None
) -> None:
    text = json.dumps({"v": value, "w": [value]}, indent=indent, ensure_ascii=False)
    pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False).split("\n")
    layout = JsonLayout(Lines.of(text.encode()))
    assert layout.matches(len(pretty))
    if indent is not None:  # the same breaks: the same lines
        assert [layout.start_line(n) for n in range(len(pretty))] == list(range(len(pretty)))
        assert [layout.end_line(n) for n in range(len(pretty))] == list(range(len(pretty)))
    else:
        assert {layout.start_line(n) for n in range(len(pretty))} == {0}
