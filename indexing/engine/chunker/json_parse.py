"""JSON parsed whole and written pretty-printed (two-space indent): by orjson, or by the
standard library for what orjson cannot carry exactly (NaN or Infinity, integers beyond
64 bits, nesting deeper than it follows), written the same way:
`json.dumps(indent=2, ensure_ascii=False)`, which orjson's output matches except in how
some floats are spelled (`1e-05` there, `0.00001` here: the same number).
"""

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import orjson

from indexing.engine.text import sanitize

OPENS_OBJECT_OR_ARRAY = re.compile(r"\s*[{[]")
_LONG_INTEGER = re.compile(r"[\[:,]\s*(-?[0-9]{20,})")
"""A value of 20 digits or more may be an integer beyond 64 bits, which orjson would read as
a float (in a string, such digits only cost the slower path)."""
_INTEGER_RANGE = range(-(2**63), 2**64)
"""The integers orjson reads and writes exactly."""
_HUGE_FLOAT = re.compile(rb"e\+(?:19|[2-9][0-9]|[0-9]{3})")
"""How orjson writes a number of 1e19 or more: what such an integer became, if any."""

Encoder = Callable[[object], bytes]
"""Writes a value as its pretty-printed UTF-8 text (two-space indent, no final newline)."""


orjson_pretty: Encoder = partial(orjson.dumps, option=orjson.OPT_INDENT_2)  # no Python frame


def stdlib_pretty(value: object) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")


class ParsedJson(NamedTuple):
    """A JSON object or array, its pretty-printed text and the encoder that wrote it."""

    value: dict[str, Any] | list[Any]
    text: bytes  # UTF-8
    encode: Encoder


def parse_json_document(text: str) -> ParsedJson | None:
    """Parse and pretty-print `text` when it is one JSON object or array, else None."""
    if not OPENS_OBJECT_OR_ARRAY.match(text):
        return None
    return _with_orjson(text) or _with_stdlib(text)


def _with_orjson(text: str) -> ParsedJson | None:
    """None for what orjson refuses (NaN, Infinity, deep nesting) or would change."""
    try:
        value = orjson.loads(text)
        pretty = orjson_pretty(value)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, RecursionError, TypeError):
        return None
    # An integer beyond 64 bits became a float, written with an exponent.
    if _HUGE_FLOAT.search(pretty) and _beyond_64_bits(text):
        return None
    return ParsedJson(value, pretty, orjson_pretty)


def _beyond_64_bits(text: str) -> bool:
    """True when `text` may hold an integer orjson cannot read exactly."""
    return any(int(match[1]) not in _INTEGER_RANGE for match in _LONG_INTEGER.finditer(text))


def _with_stdlib(text: str) -> ParsedJson | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    # `"\ud800"` decodes to a lone surrogate, which has no UTF-8 form: U+FFFD replaces it.
    pretty = sanitize(json.dumps(value, indent=2, ensure_ascii=False)).encode()
    return ParsedJson(value, pretty, stdlib_pretty)
