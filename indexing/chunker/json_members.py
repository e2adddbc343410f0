"""A large JSON document read one member at a time, its pretty text written alongside.

Holding a whole parsed document costs several times its size; here only one member of the
top-level array or object (or of a top-level object's array or object) is alive at a
time. The text written is exactly what orjson writes for the whole document (two-space
indent), and `Members` record where each member's value was written in it, so the
chunker can read them back one at a time. Anything orjson would not write exactly (NaN,
Infinity, an integer beyond 64 bits, a lone surrogate, nesting deeper than it follows),
duplicate keys and any malformed input raise `ValueError` or `TypeError`: the caller then
reads the document whole.
"""

import json
import math
import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring

import orjson

_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e400: orjson would write null
        raise ValueError(f"{text} is beyond a double")
    return number


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


_scan = json.JSONDecoder(parse_float=_finite, parse_constant=_no_constants).scan_once


def _skip(text: str, at: int) -> int:
    return _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]


@dataclass(slots=True)
class Members:
    """The members of a non-empty container, as written in `text`: keys (None in an array)
    and where each value's text starts and ends. A member of the top-level object that is
    itself a non-empty array or object is a `Members` of its own (`nested`, by position).
    """

    text: bytearray
    keys: list[str] | None
    spans: array = field(default_factory=lambda: array("q"))  # start, end of each value
    nested: dict[int, "Members"] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.spans) // 2

    def __iter__(self) -> Iterator[tuple[str | None, "object | Members"]]:
        """(key or None, value) for each member; values are read back one at a time."""
        for position in range(len(self)):
            key = None if self.keys is None else self.keys[position]
            value = self.nested.get(position)
            if value is None:
                start, end = self.spans[2 * position], self.spans[2 * position + 1]
                value = orjson.loads(memoryview(self.text)[start:end])
            yield key, value


def read_members(document: str) -> Members:
    """Write `document` pretty-printed, one member at a time; its top-level members.

    The whole text is in the returned `Members.text`.
    """
    text = bytearray()
    members, at = _read(document, _skip(document, 0), 0, text)
    if _skip(document, at) != len(document):
        raise ValueError("data after the document")
    return members


def _read(document: str, at: int, depth: int, text: bytearray) -> tuple[Members, int]:
    """Read the container at `at` into `text`; its members and where it ends."""
    opener = document[at : at + 1]
    if opener not in ("[", "{"):
        raise ValueError("not a JSON array or object")
    closer = "]" if opener == "[" else "}"
    at = _skip(document, at + 1)
    if document[at : at + 1] == closer:
        raise ValueError("empty")  # nothing to gain
    members = Members(text, [] if opener == "{" else None)
    keys: set[str] = set()
    pad = b"  " * (depth + 1)
    text += opener.encode() + b"\n"
    while True:
        text += pad
        key = None
        if members.keys is not None:
            key, at = _key(document, at, keys)
            members.keys.append(key)
            text += orjson.dumps(key) + b": "
        start = len(text)
        if key is not None and depth == 0 and _opens_members(document, at):
            members.nested[len(members)], at = _read(document, at, 1, text)
        else:
            try:
                value, at = _scan(document, at)
            except StopIteration as error:
                raise ValueError(f"no JSON value at {error.value}") from None
            written = orjson.dumps(value, option=orjson.OPT_INDENT_2)
            text += written.replace(b"\n", b"\n" + pad)
        members.spans.extend((start, len(text)))
        at = _skip(document, at)
        follows = document[at : at + 1]
        if follows not in (",", closer):
            raise ValueError(f"',' or {closer!r} expected at {at}")
        if follows == closer:
            break
        text += b",\n"
        at = _skip(document, at + 1)
    text += b"\n" + pad[2:] + closer.encode()
    return members, at + 1


def _opens_members(document: str, at: int) -> bool:
    """Whether a non-empty array or object starts at `at`."""
    opener = document[at : at + 1]
    if opener not in ("[", "{"):
        return False
    inside = _skip(document, at + 1)
    return document[inside : inside + 1] not in ("]", "}", "")


def _key(document: str, at: int, keys: set[str]) -> tuple[str, int]:
    if document[at : at + 1] != '"':
        raise ValueError(f"a key expected at {at}")
    key, at = scanstring(document, at + 1)
    if key in keys:
        raise ValueError(f"duplicate key {key!r}")  # a whole parse keeps only the last
    keys.add(key)
    at = _skip(document, at)
    if document[at : at + 1] != ":":
        raise ValueError(f"':' expected at {at}")
    return key, _skip(document, at + 1)
