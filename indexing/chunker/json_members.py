"""A large JSON document read one member at a time, its pretty text written alongside.

Holding a whole parsed document costs several times its size; here only one member of the
top-level array or object (or of a top-level object's array or object) is alive at a
time. The text written is exactly what orjson writes for the whole document (two-space
indent). Anything orjson would not write exactly (NaN, Infinity, an integer beyond 64
bits, a lone surrogate, nesting deeper than it follows), duplicate keys and any malformed
input raise `ValueError` or `TypeError`: the caller then reads the document whole.
"""

import json
import math
import re
from collections.abc import Iterator
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


class JsonMembers:
    """Iterates (key or None in an array, value, is last) over the top-level members.

    A member of a top-level object that is itself a non-empty array or object is given as
    a `JsonMembers` of its own, read member by member too (`{"items": [...]}`); whether
    such a member is the last is known only once it is read, so it is given as not last.
    `text` holds the pretty-printed document once the iteration has ended.
    """

    def __init__(self, document: str) -> None:
        self._document = document
        self._at = 0
        self._depth = 0
        self.text = bytearray()

    def __iter__(self) -> Iterator[tuple[str | None, object, bool]]:
        document = self._document
        at = _skip(document, self._at)
        opener = document[at : at + 1]
        if opener not in ("[", "{"):
            raise ValueError("not a JSON array or object")
        closer = "]" if opener == "[" else "}"
        at = _skip(document, at + 1)
        if document[at : at + 1] == closer:
            raise ValueError("empty")  # nothing to gain
        keys: set[str] | None = set() if opener == "{" else None
        pad = b"  " * (self._depth + 1)
        self.text += opener.encode() + b"\n"
        while True:
            key = None
            self.text += pad
            if keys is not None:
                key, at = self._key(document, at, keys)
                self.text += orjson.dumps(key) + b": "
            if key is not None and self._depth == 0 and self._opens_members(document, at):
                nested = JsonMembers(document)
                nested._at, nested._depth, nested.text = at, 1, self.text
                yield key, nested, False
                at = _skip(document, nested._at)
            else:
                try:
                    value, at = _scan(document, at)
                except StopIteration as error:
                    raise ValueError(f"no JSON value at {error.value}") from None
                at = _skip(document, at)
                written = orjson.dumps(value, option=orjson.OPT_INDENT_2)
                self.text += written.replace(b"\n", b"\n" + pad)
                yield key, value, document[at : at + 1] == closer
            follows = document[at : at + 1]
            if follows not in (",", closer):
                raise ValueError(f"',' or {closer!r} expected at {at}")
            if follows == closer:
                break
            self.text += b",\n"
            at = _skip(document, at + 1)
        self.text += b"\n" + pad[2:] + closer.encode()
        self._at = at + 1
        if self._depth == 0 and _skip(document, self._at) != len(document):
            raise ValueError("data after the document")

    @staticmethod
    def _opens_members(document: str, at: int) -> bool:
        """Whether a non-empty array or object starts at `at`."""
        opener = document[at : at + 1]
        if opener not in ("[", "{"):
            return False
        inside = _skip(document, at + 1)
        return document[inside : inside + 1] not in ("]", "}", "")

    @staticmethod
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
