"""A large JSON document read one member at a time as the chunker takes them, its pretty
text written alongside when it is served.

Holding a whole parsed document costs several times its size; here only one member of the
top-level array or object (or of a top-level object's arrays and objects, or of an array
in one of those objects) is alive at a time, and the text is written as the members are
taken, so what is written can be indexed while the rest is read. The text written is
exactly what orjson writes for the whole document (two-space indent).
NaN, Infinity, numbers beyond a double, duplicate keys of the containers read member by
member and any malformed input raise `NotStreamable` when the reading comes to them,
possibly after many members were taken: the document must then be read whole. So does,
when the text is written, anything else orjson would not write exactly (an integer beyond
64 bits, a lone surrogate, nesting deeper than it follows); when it is not, the chunker,
which writes every value to measure it, finds those (`jsondoc`).
"""

import json
import math
import re
from collections.abc import Iterator
from json.decoder import scanstring

import orjson

from indexing.engine.chunker.lines import Lines

_WHITESPACE = re.compile(r"[ \t\n\r]*")


class NotStreamable(Exception):
    """The document cannot be read member by member: read it whole."""


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


class _Reader:
    """Where reading a document has got to, and the lines its text is written into."""

    __slots__ = ("document", "at", "lines")

    def __init__(self, document: str, lines: Lines | None) -> None:
        self.document = document
        self.at = _skip(document, 0)
        self.lines = lines


class Members:
    """The members of a non-empty array or object, read from the document as they are
    taken: iterating yields (key, or None in an array; value; `after`), `after` being the
    bytes written after the value on its last line (1 for a comma, 0 for the last member).

    A member of the top-level object that is itself a non-empty array or object, or a
    non-empty array in such an object, is a `Members` of its own, yielded with `after`
    None: it knows its `after` once it has been read through. Only one member is read at a
    time, in order.
    """

    __slots__ = ("_reader", "_depth", "_keys", "_closer", "after")

    def __init__(self, reader: _Reader, depth: int) -> None:
        document, at = reader.document, reader.at
        opener = document[at : at + 1]
        if opener not in ("[", "{"):
            raise NotStreamable("not a JSON array or object")
        self._closer = "]" if opener == "[" else "}"
        reader.at = _skip(document, at + 1)
        if document[reader.at : reader.at + 1] == self._closer:
            raise NotStreamable("empty")  # nothing to gain
        self._reader, self._depth = reader, depth
        self._keys: set[str] | None = set() if opener == "{" else None
        self.after: int | None = None
        if reader.lines is not None:
            reader.lines.write(opener.encode() + b"\n")

    def __iter__(self) -> Iterator[tuple[str | None, "object | Members", int | None]]:
        try:
            yield from self._read()
        except (ValueError, TypeError, RecursionError) as error:  # orjson's errors too
            raise NotStreamable(str(error) or type(error).__name__) from None

    def _read(self) -> Iterator[tuple[str | None, "object | Members", int | None]]:
        reader, keys = self._reader, self._keys
        document, lines = reader.document, reader.lines
        pad = b"  " * (self._depth + 1)
        while True:
            key, at = None, reader.at
            if keys is not None:
                key, at = _key(document, at, keys)
                if lines is not None:
                    lines.write(pad + orjson.dumps(key) + b": ")
            elif lines is not None:
                lines.write(pad)
            if key is not None and _opens_members(document, at, self._depth):
                reader.at = at
                nested = Members(reader, self._depth + 1)
                yield key, nested, None  # read through by the taker
                last = self._end_member()
            else:
                try:
                    value, reader.at = _scan(document, at)
                except StopIteration as error:
                    raise ValueError(f"no JSON value at {error.value}") from None
                if lines is not None:
                    written = orjson.dumps(value, option=orjson.OPT_INDENT_2)
                    lines.write(written.replace(b"\n", b"\n" + pad))
                last = self._end_member()
                yield key, value, 0 if last else 1
            if last:
                break
        if self._depth == 0:
            if _skip(document, reader.at) != len(document):
                raise ValueError("data after the document")
            if lines is not None:
                lines.finish()
        else:
            following = _skip(document, reader.at)
            self.after = 0 if document[following : following + 1] != "," else 1

    def _end_member(self) -> bool:
        """Read and write what follows a member: True when it closed the container."""
        reader = self._reader
        document, at = reader.document, _skip(reader.document, reader.at)
        follows = document[at : at + 1]
        lines = reader.lines
        if follows == ",":
            if lines is not None:
                lines.write(b",\n")
            reader.at = _skip(document, at + 1)
            return False
        if follows != self._closer:
            raise ValueError(f"',' or {self._closer!r} expected at {at}")
        if lines is not None:
            lines.write(b"\n" + b"  " * self._depth + follows.encode())
        reader.at = at + 1
        return True


def read_members(document: str, lines: Lines | None) -> Members:
    """Start reading `document`, a JSON array or object, member by member, written into
    `lines` unless None (being written: finished once the last member has been taken).

    Raises:
        NotStreamable: the document does not open a non-empty array or object.
    """
    return Members(_Reader(document, lines), 0)


def _opens_members(document: str, at: int, depth: int) -> bool:
    """Whether the member of an object at `depth` starting at `at` is read member by member:
    a non-empty array or object in the top-level object, a non-empty array in one of its
    objects (the list an API's envelope wraps: `{"data": {"items": [...]}}`)."""
    opener = document[at : at + 1]
    if opener not in ("[", "{") or (depth and opener == "{"):
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
