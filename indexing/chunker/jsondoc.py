"""JSON: pretty-printed once (indent=2), chunked by key path, array items batched by identity."""

import json
import re
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

from indexing.chunker.document import Chunk, OutlineEntry
from indexing.chunker.lines import Lines
from indexing.chunker.sizing import (
    MAX_CHUNK_CHARS,
    TARGET_CHUNK_CHARS,
    make_chunk,
    split_block,
)
from indexing.text import one_line

NAME_FIELDS = ("name", "title", "path", "key", "uri", "url", "slug", "label", "filename", "email")
ID_FIELDS = ("id", "uuid", "number")
ROOT_PATH = "$"
_OUTLINE_DEPTH = 2
_OPENS_OBJECT_OR_ARRAY = re.compile(r"\s*[{[]")


def parse_json_document(text: str) -> dict[str, Any] | list[Any] | None:
    """Return the parsed object or array when `text` is one JSON object/array, else None."""
    if not _OPENS_OBJECT_OR_ARRAY.match(text):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def identity_of(item: object) -> str | None:
    """Name an array item by its identity fields: `fix login (id=1234)`, `README.md`, `id=7`."""
    if not isinstance(item, dict):
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
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return field, one_line(str(value), 60)
    return None


@dataclass(slots=True)
class _Written:
    """Where a written value sits; `chunks` is None while it is small enough to be one chunk."""

    start: int
    end: int
    chars: int
    title: str | None  # None: the member path of `name` under the parent's path
    name: str
    chunks: list[Chunk] | None


class JsonChunker:
    """Writes a parsed JSON value as `json.dumps(indent=2)` lines while deciding its chunks."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.outline: list[OutlineEntry] = []
        self._chars = 0

    def chunk(self, value: object) -> list[Chunk]:
        """Write `value` and return its chunks; the lines land in `self.lines`."""
        written = self._write(value, "", 0, ROOT_PATH, ROOT_PATH, ROOT_PATH)
        if written.chunks is not None:
            return written.chunks
        return [make_chunk(written.start, written.end, ROOT_PATH)]

    def written_lines(self) -> Lines:
        """The lines written, as one text (the list of line strings is released)."""
        lines, self.lines = Lines.join(self.lines), []
        return lines

    def _append(self, line: str) -> None:
        self.lines.append(line)
        self._chars += len(line) + 1

    def _write(
        self, value: object, prefix: str, indent: int, path: str, title: str, name: str
    ) -> _Written:
        lines = self.lines
        start, chars_before = len(lines), self._chars
        pad = "  " * indent
        children: list[_Written] = []
        if isinstance(value, dict) and value:
            self._append(f"{pad}{prefix}{{")
            last = len(value) - 1
            child_pad = pad + "  "
            for position, (key, child) in enumerate(value.items()):
                if indent < _OUTLINE_DEPTH:
                    self.outline.append(OutlineEntry(len(lines) + 1, one_line(key), indent))
                prefix_of_child = encode_basestring(key) + ": "
                if isinstance(child, dict | list) and child:
                    child_path = _member_path(path, key)
                    written = self._write(
                        child, prefix_of_child, indent + 1, child_path, child_path, key
                    )
                else:  # a scalar: one line, written here rather than in a nested call
                    line = child_pad + prefix_of_child + _scalar(child)
                    written = self._scalar_line(line, None, key, path)
                children.append(written)
                if position < last:
                    lines[-1] += ","
                    self._chars += 1
            self._append(pad + "}")
        elif isinstance(value, list) and value:
            self._append(f"{pad}{prefix}[")
            last = len(value) - 1
            child_pad = pad + "  "
            for position, child in enumerate(value):
                identity = identity_of(child)
                child_name = f"[{position}]" + (f" {identity}" if identity else "")
                if indent < _OUTLINE_DEPTH:
                    self.outline.append(OutlineEntry(len(lines) + 1, child_name, indent))
                child_path = f"{path}[{position}]"
                child_title = child_path + (f" ({identity})" if identity else "")
                if isinstance(child, dict | list) and child:
                    written = self._write(
                        child, "", indent + 1, child_path, child_title, child_name
                    )
                else:
                    line = child_pad + _scalar(child)
                    written = self._scalar_line(line, child_title, child_name, path)
                children.append(written)
                if position < last:
                    lines[-1] += ","
                    self._chars += 1
            self._append(pad + "]")
        else:
            self._append(pad + prefix + _scalar(value))
        end, chars = len(lines) - 1, self._chars - chars_before
        if chars <= MAX_CHUNK_CHARS:
            return _Written(start, end, chars, title, name, None)
        if not children:
            chunks = split_block(lines, start, end, title)
        else:
            chunks = self._batch(children, path)
        return _Written(start, end, chars, title, name, chunks)

    def _scalar_line(self, line: str, title: str | None, name: str, path: str) -> _Written:
        """Append one scalar's line; what `_write` returns for it (see `_Written.title`)."""
        index = len(self.lines)
        self._append(line)
        chars = len(line) + 1
        if chars <= MAX_CHUNK_CHARS:
            return _Written(index, index, chars, title, name, None)
        if title is None:
            title = _member_path(path, name)
        return _Written(
            index, index, chars, title, name, split_block(self.lines, index, index, title)
        )

    def _batch(self, children: list[_Written], path: str) -> list[Chunk]:
        """Group small consecutive children into chunks; large children keep their own."""
        chunks: list[Chunk] = []
        batch: list[_Written] = []
        size = 0
        for child in children:
            if child.chunks is not None or (batch and size + child.chars > TARGET_CHUNK_CHARS):
                if batch:
                    chunks.append(self._batch_chunk(batch, path))
                batch, size = [], 0
            if child.chunks is not None:
                chunks.extend(child.chunks)
                continue
            batch.append(child)
            size += child.chars
        if batch:
            chunks.append(self._batch_chunk(batch, path))
        return chunks

    def _batch_chunk(self, batch: list[_Written], path: str) -> Chunk:
        title = batch[0].title
        if title is None:
            title = _member_path(path, batch[0].name)
        if len(batch) > 1:
            title = one_line(f"{path}: " + ", ".join(child.name for child in batch), 200)
        return make_chunk(batch[0].start, batch[-1].end, title)


def _member_path(path: str, key: str) -> str:
    """Return the JSONPath-style path of `key` under `path`."""
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{encode_basestring(key)}]"


def _scalar(value: object) -> str:
    """Encode a scalar exactly as `json.dumps` does (NaN and Infinity included)."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    return int.__repr__(value)  # type: ignore[arg-type]


def chunk_json(text: str) -> tuple[Lines, list[Chunk], list[OutlineEntry]] | None:
    """Pretty-print and chunk `text` when it is one JSON object or array, else None.

    Raises:
        RecursionError: nesting deeper than the writer can follow.
    """
    value = parse_json_document(text)
    if value is None:
        return None
    chunker = JsonChunker()
    chunks = chunker.chunk(value)
    del value  # often the largest thing in memory: gone before the lines are joined
    return chunker.written_lines(), chunks, chunker.outline
