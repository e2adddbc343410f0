"""A large JSON document read one top-level member at a time, its pretty text written alongside.

Holding a whole parsed document costs several times its size; here only one member of the
top-level array or object is alive at a time. The text written is exactly what orjson
writes for the whole document (two-space indent). Anything orjson would not write exactly
(NaN, Infinity, an integer beyond 64 bits, a lone surrogate, nesting deeper than it
follows), duplicate top-level keys and any malformed input raise `ValueError` or
`TypeError`: the caller then reads the document whole, as before.
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

    `text` holds the pretty-printed document once the iteration has ended.
    """

    def __init__(self, document: str) -> None:
        self._document = document
        self.text = bytearray()

    def __iter__(self) -> Iterator[tuple[str | None, object, bool]]:
        document = self._document
        at = _skip(document, 0)
        opener = document[at : at + 1]
        if opener not in ("[", "{"):
            raise ValueError("not a JSON array or object")
        closer = "]" if opener == "[" else "}"
        at = _skip(document, at + 1)
        if document[at : at + 1] == closer:
            raise ValueError("empty")  # nothing to gain
        keys: set[str] | None = set() if opener == "{" else None
        self.text += opener.encode() + b"\n"
        while True:
            key = None
            if keys is not None:
                key, at = self._key(document, at, keys)
            try:
                value, at = _scan(document, at)
            except StopIteration as error:
                raise ValueError(f"no JSON value at {error.value}") from None
            at = _skip(document, at)
            follows = document[at : at + 1]
            if follows not in (",", closer):
                raise ValueError(f"',' or {closer!r} expected at {at}")
            self._write(key, value)
            yield key, value, follows == closer
            if follows == closer:
                break
            self.text += b",\n"
            at = _skip(document, at + 1)
        if _skip(document, at + 1) != len(document):
            raise ValueError("data after the document")
        self.text += b"\n" + closer.encode()

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

    def _write(self, key: str | None, value: object) -> None:
        self.text += b"  "
        if key is not None:
            self.text += orjson.dumps(key) + b": "
        self.text += orjson.dumps(value, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n  ")
