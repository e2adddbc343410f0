"""JSON: pretty-printed once (two-space indent), chunked by key path, array items batched.

The text is written by orjson at C speed; chunking walks the parsed value only where a
chunk boundary or a Contents entry can fall: a container that fits in one chunk is
measured from its own pretty-printed text (line count and size), never visited value by
value. Chunks are made as they are taken, so a writer can index the first ones while the
rest are found; a large document is even read and written one top-level member at a time
as they are (`json_members`), a small one at once. JSON orjson cannot carry
exactly (NaN or Infinity, integers beyond 64 bits, nesting deeper than it follows) is
parsed and written by the standard library instead, the same way:
`json.dumps(indent=2, ensure_ascii=False)`, which orjson's output matches except in how
some floats are spelled (`1e-05` there, `0.00001` here: the same number).
"""

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, islice, repeat
from json.encoder import encode_basestring
from typing import Any, NamedTuple

import numpy as np
import orjson

from indexing.engine.chunker.document import CONTENTS_BYTES, Chunk, OutlineEntry
from indexing.engine.chunker.json_layout import JsonLayout
from indexing.engine.chunker.json_members import Members, NotStreamable, read_members
from indexing.engine.chunker.lines import NEWLINE, SPACE, Lines
from indexing.engine.chunker.packed import PackedLines
from indexing.engine.chunker.sizing import (
    MAX_CHUNK_CHARS,
    TARGET_CHUNK_CHARS,
    make_chunk,
    split_line,
)
from indexing.engine.text import LINE_PART_CHARS, one_line, sanitize

NAME_FIELDS = ("name", "title", "path", "key", "uri", "url", "slug", "label", "filename", "email")
ID_FIELDS = ("id", "uuid", "number")
_IDENTITY_FIELDS = frozenset(NAME_FIELDS + ID_FIELDS)
_NAMING_TYPES = frozenset((str, int, float))
"""The values that can name an item (as JSON parsers make them: `True` is not one)."""
ROOT_PATH = "$"
_OUTLINE_DEPTH = 2
"""Members of containers above this depth are outline entries: the top level's, and theirs."""
_MIN_ENTRY_BYTES = len(OutlineEntry(1, "", 1).contents_item(0)) + 1
"""What an outline entry below the top level takes in Contents at the least (newline too)."""
STREAM_MIN_CHARS = 256 * 1024
"""Documents this long are read one top-level member at a time where possible."""
_OPENS_OBJECT_OR_ARRAY = re.compile(r"\s*[{[]")
_LONG_INTEGER = re.compile(r"[\[:,]\s*(-?[0-9]{20,})")
"""A value of 20 digits or more may be an integer beyond 64 bits, which orjson would read as
a float (in a string, such digits only cost the slower path)."""
_INTEGER_RANGE = range(-(2**63), 2**64)
"""The integers orjson reads and writes exactly."""
_HUGE_FLOAT = re.compile(rb"e\+(?:19|[2-9][0-9]|[0-9]{3})")
"""How orjson writes a number of 1e19 or more: what such an integer became, if any."""
_BATCH_TITLE_CHARS = 200
_NAMES_SHOWN = _BATCH_TITLE_CHARS // len(", [0]") + 1
"""A batch's title lists its members' names until it is cut: this many make it too long."""
_CLOSING = (ord("]"), ord("}"))
_MIN_ITEMS_BATCHED = 8
"""Lists this long are measured and batched from their own text (`_batch_items`): for
fewer items, visiting each costs less."""

Encoder = Callable[[object], bytes]
"""Writes a value as its pretty-printed UTF-8 text (two-space indent, no final newline)."""


_orjson_pretty: Encoder = partial(orjson.dumps, option=orjson.OPT_INDENT_2)  # no Python frame


def _stdlib_pretty(value: object) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")


class ParsedJson(NamedTuple):
    """A JSON object or array, its pretty-printed text and the encoder that wrote it."""

    value: dict[str, Any] | list[Any]
    text: bytes  # UTF-8
    encode: Encoder


def parse_json_document(text: str) -> ParsedJson | None:
    """Parse and pretty-print `text` when it is one JSON object or array, else None."""
    if not _OPENS_OBJECT_OR_ARRAY.match(text):
        return None
    return _with_orjson(text) or _with_stdlib(text)


def _with_orjson(text: str) -> ParsedJson | None:
    """None for what orjson refuses (NaN, Infinity, deep nesting) or would change."""
    try:
        value = orjson.loads(text)
        pretty = _orjson_pretty(value)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, RecursionError, TypeError):
        return None
    # An integer beyond 64 bits became a float, written with an exponent.
    if _HUGE_FLOAT.search(pretty) and _beyond_64_bits(text):
        return None
    return ParsedJson(value, pretty, _orjson_pretty)


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
    return ParsedJson(value, pretty, _stdlib_pretty)


def identity_of(item: object) -> str | None:
    """Name an array item by its identity fields: `fix login (id=1234)`, `README.md`, `id=7`."""
    if not isinstance(item, dict) or _IDENTITY_FIELDS.isdisjoint(item):
        return None
    name = _first_scalar(item, NAME_FIELDS)
    identifier = _first_scalar(item, ID_FIELDS)
    if name is None:
        return None if identifier is None else f"{identifier[0]}={identifier[1]}"
    return name[1] + ("" if identifier is None else f" ({identifier[0]}={identifier[1]})")


def _first_scalar(item: dict[str, Any], fields: tuple[str, ...]) -> tuple[str, str] | None:
    """Return (field, value shortened to one line) for the first field holding a scalar."""
    for field in fields:
        value = item.get(field)
        if value is not None and type(value) in _NAMING_TYPES:
            return field, one_line(str(value), 60)
    return None


def _members(value: object) -> Iterator[tuple[str | None, object, int | None]]:
    """(key, or None in an array; value; bytes after it on its last line: 1 for a comma, 0
    for the last member, None for a `Members` that knows once read) for each member of a
    container."""
    if type(value) is dict:
        return zip(value.keys(), value.values(), _commas(len(value)), strict=True)
    if type(value) is list:
        return zip(repeat(None), value, _commas(len(value)))
    assert isinstance(value, Members), type(value)
    return iter(value)


def _commas(count: int) -> Iterator[int]:
    """1 for each of `count` members but the last, 0 for it."""
    yield from repeat(1, count - 1)
    yield 0


@dataclass(slots=True)
class _Measured:
    """Where a value sits (0-based lines). `chunks` is None while it fits in one chunk, else
    its chunks not yielded yet (none, for a container walked member by member)."""

    start: int
    end: int
    chars: int
    title: str
    name: str
    chunks: list[Chunk] | None


Walk = Generator[Chunk, None, _Measured]
"""Yields a container's chunks as they are made; returns its measure."""


class JsonChunker:
    """Finds the chunks and outline of a value as its encoder writes it.

    Sizes are counted in UTF-8 bytes of the text written, except for a line long enough
    to be cut into parts, whose characters count.
    Chunks are made as they are taken (the outline is complete once they all are).
    """

    def __init__(self, encode: Encoder, lines: Lines | None) -> None:
        self.encode = encode
        self.lines = lines  # the text `encode` writes, when it is served
        self.outline: list[OutlineEntry] = []
        self.line_count = 0
        """The lines of the value's pretty text, once its chunks are all taken."""
        self._outline_depth = _OUTLINE_DEPTH
        self._deepest_entries = 0  # in the outline's deepest level (below the top one)

    def _add_entry(self, line: int, title: str, depth: int) -> None:
        """Add an outline entry at `depth`, while its level can still be shown.

        Contents show a level below the top one whole or not at all: once the entries of
        the deepest level could not fit even at their shortest, that level is dropped, and
        the containers whose members it lists need no longer be walked for it.
        """
        self.outline.append(OutlineEntry(line, title, depth))
        if depth and depth == self._outline_depth - 1:
            self._deepest_entries += 1
            if self._deepest_entries * _MIN_ENTRY_BYTES > CONTENTS_BYTES:
                self._outline_depth = depth
                self.outline[:] = [entry for entry in self.outline if entry.depth < depth]

    def chunks(self, value: object) -> Iterator[Chunk]:
        """The chunks of `value`'s pretty-printed lines (`Members` read member by member)."""
        measured = self._leaf(value, 0, 0, 0, 0, ROOT_PATH, ROOT_PATH)
        if measured is None:
            measured = yield from self._walk(value, 0, 0, 0, 0, ROOT_PATH, ROOT_PATH, ROOT_PATH)
        self.line_count = measured.end + 1
        if measured.chunks is None:
            yield make_chunk(measured.start, measured.end, ROOT_PATH)
        else:
            yield from measured.chunks

    def _leaf(
        self,
        value: object,
        line: int,
        depth: int,
        before: int,
        after: int | None,
        title: str,
        name: str,
    ) -> _Measured | None:
        """Measure `value` without walking it (a scalar, an empty container, or a container
        that fits in one chunk); None when it must be walked.

        It is written from 0-based `line` at depth `depth`, after `before` bytes on that
        line (indentation and `"key": `) and before `after` ones on its last (a comma or
        none).
        """
        kind = type(value)
        if kind is Members:
            return None
        if (kind is not dict and kind is not list) or not value:  # as JSON parsers make them
            written = self.encode(value)
            length = before + len(written) + after
            if length >= MAX_CHUNK_CHARS and self.lines is not None:
                length = self.lines.length(line)  # count characters, as parts do
            if length < MAX_CHUNK_CHARS:
                return _Measured(line, line, length + 1, title, name, None)
            # One line longer than a chunk: the parts IndexRead serves are its chunks.
            return _Measured(line, line, length + 1, title, name, split_line(length, line, title))
        if depth >= self._outline_depth and len(value) * (2 * depth + 4) <= MAX_CHUNK_CHARS:
            text = self.encode(value)  # perhaps small enough for one chunk: measure it whole
            lines = text.count(b"\n") + 1  # each below the first indented `depth` levels
            chars = before + len(text) + 2 * depth * (lines - 1) + after + 1
            if chars <= MAX_CHUNK_CHARS:
                return _Measured(line, line + lines - 1, chars, title, name, None)
        return None

    def _walk(
        self,
        value: object,
        first: int,
        depth: int,
        before: int,
        after: int | None,
        path: str,
        title: str,
        name: str,
    ) -> Walk:
        """Measure a non-empty container written as `_leaf` says, member by member; yield
        its chunks once it is known to have some (to be larger than one chunk). `after` is
        None for a `Members`, which knows it once read through.

        Small consecutive members are batched into chunks; a member with chunks of its own
        keeps them. Keys are None in an array.
        """
        if (
            type(value) is list
            and depth >= self._outline_depth
            and len(value) >= _MIN_ITEMS_BATCHED
        ):
            batched = self._batch_items(value, first, depth, before, after, path, title, name)
            if batched is not None:
                measured, chunks_made = batched
                yield from chunks_made
                return measured
        chunks = _ContainerChunks(path)
        chars = before + 2 * depth + 4  # its opening and closing lines (and `after`, below)
        indent, line = depth + 1, first + 1
        for position, (key, child, child_after) in enumerate(_members(value)):
            if key is not None:
                if depth < self._outline_depth:
                    self._add_entry(line + 1, one_line(key), depth)
                child_before = 2 * indent + len(self.encode(key)) + 2  # `"key": `
                child_path = child_title = _member_path(path, key)
                child_name = key
            else:
                child_name, child_path, child_title = _item_naming(path, position, child)
                if depth < self._outline_depth:
                    self._add_entry(line + 1, child_name, depth)
                child_before = 2 * indent
            measured = self._leaf(
                child, line, indent, child_before, child_after, child_title, child_name
            )
            if measured is None:
                walk = self._walk(
                    child,
                    line,
                    indent,
                    child_before,
                    child_after,
                    child_path,
                    child_title,
                    child_name,
                )
                while True:  # the member's chunks follow what comes before it
                    try:
                        chunk = next(walk)
                    except StopIteration as walked:
                        measured = walked.value
                        break
                    yield from chunks.flush()
                    yield chunk
            if measured.chunks is None:
                if ready := chunks.add(measured):
                    yield from ready
            else:
                yield from chunks.flush()
                yield from measured.chunks
            chars += measured.chars
            if chars > MAX_CHUNK_CHARS and chunks.held is not None:
                yield from chunks.known_to_have_chunks()
            line = measured.end + 1
        chars += value.after if after is None else after  # type: ignore[union-attr]
        if chars <= MAX_CHUNK_CHARS:
            return _Measured(first, line, chars, title, name, None)
        yield from chunks.flush()
        return _Measured(first, line, chars, title, name, [])

    def _batch_items(
        self,
        items: list[Any],
        first: int,
        depth: int,
        before: int,
        after: int,
        path: str,
        title: str,
        name: str,
    ) -> tuple[_Measured, list[Chunk]] | None:
        """`_walk` for a list whose items need no outline entries and each fit in a chunk,
        without visiting them one by one: measured from the list's own text, the items are
        batched as `_ContainerChunks` batches them. None when an item is larger than a
        chunk (the list must be walked).
        """
        if len(self.encode(items[0])) > MAX_CHUNK_CHARS:
            return None  # most likely walked: not worth writing the whole list to find out
        text = self.encode(items)
        item_lines, item_chars = _measure_items(text, depth)
        if len(item_lines) != len(items) or max(item_chars) > MAX_CHUNK_CHARS:
            return None
        last = first + text.count(b"\n")  # its closing line
        chars = before + 2 * depth + 4 + sum(item_chars) + after
        if chars <= MAX_CHUNK_CHARS:
            return _Measured(first, last, chars, title, name, None), []
        sums = [0, *accumulate(item_chars)]
        ends = [*item_lines[1:], last - first]  # the line after each item
        named = any(type(item) is dict for item in items)  # else names are positions
        chunks = []
        start = 0
        while start < len(items):
            # The batch grows while it holds at most TARGET_CHUNK_CHARS, by one item at least.
            stop = max(start + 1, bisect_right(sums, sums[start] + TARGET_CHUNK_CHARS) - 1)
            if stop - start == 1:
                batch_title = _item_naming(path, start, items[start])[2]
            else:
                shown = range(start, min(stop, start + _NAMES_SHOWN))
                names = (
                    (_item_naming(path, n, items[n])[0] for n in shown)
                    if named
                    else map("[{}]".format, shown)
                )
                batch_title = _batch_title(path, names)
            chunks.append(
                make_chunk(first + item_lines[start], first + ends[stop - 1] - 1, batch_title)
            )
            start = stop
        return _Measured(first, last, chars, title, name, []), chunks


def _measure_items(text: bytes, depth: int) -> tuple[list[int], list[int]]:
    """For a non-empty list's pretty text: the line each item starts on (0 is the list's
    opening line), and the bytes each item takes with the list written at `depth`.

    An item starts on a line indented one level (two spaces) that does not close an item
    written over several lines; it ends where the next one starts, or the closing line.
    """
    data = np.frombuffer(text + b"\0\0", np.uint8)
    starts = np.flatnonzero(data == NEWLINE) + 1  # of lines 1 and on
    third = data[starts + 2]
    opens_item = (
        (data[starts] == SPACE)
        & (data[starts + 1] == SPACE)
        & (third != SPACE)
        & (third != _CLOSING[0])
        & (third != _CLOSING[1])
    )
    bounds = np.append(np.flatnonzero(opens_item), len(starts) - 1)  # indexes into `starts`
    offsets = starts[bounds]
    chars = offsets[1:] - offsets[:-1] + 2 * depth * (bounds[1:] - bounds[:-1])
    return (bounds[:-1] + 1).tolist(), chars.tolist()


def _item_naming(path: str, position: int, item: object) -> tuple[str, str, str]:
    """An array item's name, path and title: `[3] README.md (id=7)`, `$.files[3]`,
    `$.files[3] (README.md (id=7))`."""
    identity = identity_of(item) if type(item) is dict else None
    item_path = f"{path}[{position}]"
    if identity is None:
        return f"[{position}]", item_path, item_path
    return f"[{position}] {identity}", item_path, f"{item_path} ({identity})"


def _batch_title(path: str, names: Iterable[str]) -> str:
    """`path: name, name, …`, cut to one line of _BATCH_TITLE_CHARS."""
    return one_line(f"{path}: " + ", ".join(islice(names, _NAMES_SHOWN)), _BATCH_TITLE_CHARS)


class _ContainerChunks:
    """A container's chunks as its members are measured: small members batched, each
    batch of about TARGET_CHUNK_CHARS one chunk. Chunks are held back until the container
    is known to have chunks at all: a container of one chunk's size has none of its own.
    """

    __slots__ = ("path", "held", "batch", "size")

    def __init__(self, path: str) -> None:
        self.path = path
        self.held: list[Chunk] | None = []  # None once the container is known to have chunks
        self.batch: list[_Measured] = []
        self.size = 0

    def add(self, member: _Measured) -> list[Chunk]:
        """A member without chunks of its own: the chunks to yield now."""
        ready = []
        if self.batch and self.size + member.chars > TARGET_CHUNK_CHARS:
            ready.append(self._batch_chunk())
        self.batch.append(member)
        self.size += member.chars
        if self.held is None:
            return ready
        self.held += ready
        return []

    def known_to_have_chunks(self) -> list[Chunk]:
        """The container is larger than one chunk: the chunks held back."""
        ready, self.held = self.held or [], None
        return ready

    def flush(self) -> list[Chunk]:
        """The container has chunks: those held back and the batch so far (before a
        member's own chunks, or at the end)."""
        ready = self.known_to_have_chunks()
        if self.batch:
            ready.append(self._batch_chunk())
        return ready

    def _batch_chunk(self) -> Chunk:
        batch = self.batch
        title = batch[0].title
        if len(batch) > 1:
            title = _batch_title(self.path, (member.name for member in batch))
        self.batch, self.size = [], 0
        return make_chunk(batch[0].start, batch[-1].end, title)


def _member_path(path: str, key: str) -> str:
    """Return the JSONPath-style path of `key` under `path`."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{encode_basestring(key)}]"


class JsonDocument(NamedTuple):
    """A JSON document: the lines served, its chunks as they are taken, its outline
    (complete once the chunks all are), and `raw`, the text as sent, when the lines served
    are not it but its pretty-printed text (`is_minified`)."""

    lines: Lines
    chunks: Iterator[Chunk]
    outline: list[OutlineEntry]
    raw: PackedLines | None = None


PRETTY_MIN_LINE_CHARS = LINE_PART_CHARS
PRETTY_MIN_SHARE = 0.9
"""Minified JSON is served pretty-printed: a line longer than PRETTY_MIN_LINE_CHARS (read
in parts otherwise) holding at least PRETTY_MIN_SHARE of the text's bytes."""


def is_minified(sent: Lines) -> bool:
    """Whether a JSON text is (nearly) one line too long to read whole: `PRETTY_MIN_SHARE`."""
    if not sent.text:
        return False
    sizes = np.diff(sent.starts_view())
    longest = int(sizes.argmax())
    size = int(sizes[longest])
    if size < PRETTY_MIN_SHARE * len(sent.text) or size <= PRETTY_MIN_LINE_CHARS:
        return False
    # Counted only when it is in doubt: decoding a long line beyond ASCII whole costs up
    # to 4 bytes a character.
    return size > 4 * PRETTY_MIN_LINE_CHARS or sent.length(longest) > PRETTY_MIN_LINE_CHARS


def chunk_json(text: str, sent: Lines, *, whole: bool = False) -> JsonDocument | None:
    """Start chunking `text` by key path when it is one JSON object or array; else None.

    The lines served are the text as sent (`sent`, its `Lines`), chunks and outline mapped
    onto them from its pretty-printed text (`JsonLayout`); minified JSON (`is_minified`) is served
    pretty-printed instead, the text as sent kept as `raw`. A large document is read one
    top-level member at a time as its chunks are taken (`read_members`), unless `whole`
    asks for it to be read whole at once.

    Raises:
        RecursionError: nesting deeper than the chunker can follow.
        NotStreamable: (when its chunks are taken) the document turned out not to be
            readable member by member: chunk it again, `whole`.
    """
    if not _OPENS_OBJECT_OR_ARRAY.match(text):
        return None  # before `sanitize`, which reads a text beyond ASCII whole
    raw = PackedLines.of(sent) if is_minified(sent) else None  # `sent` is freed meanwhile
    minified = raw is not None
    text = sanitize(text, keep_crlf=True)
    if not whole and len(text) >= STREAM_MIN_CHARS:
        served = Lines.writing() if minified else None  # else the pretty text is not kept
        try:
            members = read_members(text, served)
        except NotStreamable:
            pass
        else:
            chunker = JsonChunker(_orjson_pretty, served)
            chunks = chunker.chunks(members)
            if served is not None:
                return JsonDocument(served, chunks, chunker.outline, raw)
            layout = JsonLayout(sent)
            checked = _checked(chunks, layout, chunker)
            return JsonDocument(sent, layout.chunks(checked, chunker.outline), chunker.outline)
    parsed = parse_json_document(text)
    if parsed is None:
        return None
    if minified:
        lines = Lines.of(parsed.text)
        chunker = JsonChunker(parsed.encode, lines)
        return JsonDocument(lines, _walked(chunker, parsed), chunker.outline, raw)
    layout = JsonLayout(sent)
    if not layout.matches(parsed.text.count(b"\n") + 1):
        return None  # duplicate keys: served as text
    parsed = parsed._replace(text=b"")  # only its line count was needed
    chunker = JsonChunker(parsed.encode, None)
    return JsonDocument(
        sent, layout.chunks(_walked(chunker, parsed), chunker.outline), chunker.outline
    )


def _walked(chunker: JsonChunker, parsed: ParsedJson) -> Iterator[Chunk]:
    """The chunks of a parsed document, as they are taken."""
    chunks = chunker.chunks(parsed.value)
    if parsed.encode is _stdlib_pretty:
        # Nesting deeper than orjson writes (255 levels) may be too deep for the walk to
        # follow: chunked at once, so that RecursionError is raised here.
        chunks = iter(list(chunks))
    return chunks


def _checked(chunks: Iterator[Chunk], layout: JsonLayout, chunker: JsonChunker) -> Iterator[Chunk]:
    """The chunks of a document read member by member and not written, checked to be what
    orjson writes (else `NotStreamable`: read whole, it is chunked the standard library's
    way) and at the end to have the lines `layout` found (else `NotStreamable`: read whole,
    it is served as text)."""
    try:
        yield from chunks
    except orjson.JSONEncodeError as error:  # an integer beyond 64 bits, a lone surrogate
        raise NotStreamable(str(error)) from None
    if not layout.matches(chunker.line_count):
        raise NotStreamable("the pretty text's lines do not match the text's")
