"""JSON: chunked by key path over the text as sent (`JsonLayout` maps the chunks of its
pretty-printed text onto it), or, minified, served pretty-printed.

A large document is read and measured one top-level member at a time as its chunks are
taken (`json_members`), a small one parsed whole at once (`json_parse`); `json_chunker`
finds the chunks and outline.
"""

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import orjson

from indexing.engine.chunker.chunk_list import Chunk
from indexing.engine.chunker.document import OutlineEntry
from indexing.engine.chunker.json_chunker import JsonChunker
from indexing.engine.chunker.json_layout import JsonLayout
from indexing.engine.chunker.json_members import NotStreamable, read_members
from indexing.engine.chunker.json_parse import (
    OPENS_OBJECT_OR_ARRAY,
    ParsedJson,
    orjson_pretty,
    parse_json_document,
    stdlib_pretty,
)
from indexing.engine.chunker.lines import Lines
from indexing.engine.text import LINE_PART_CHARS, sanitize

STREAM_MIN_CHARS = 256 * 1024
"""Documents this long are read one top-level member at a time where possible."""


class JsonDocument(NamedTuple):
    """A JSON document: the lines served, its chunks as they are taken, its outline
    (complete once the chunks all are), and `raw`, the text as sent, when the lines
    served are not it but its pretty-printed text (`is_minified`): both kept packed."""

    lines: Lines
    chunks: Iterator[Chunk]
    outline: list[OutlineEntry]
    raw: Lines | None = None


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
    onto them from its pretty-printed text (`JsonLayout`); minified JSON (`is_minified`) is
    served pretty-printed instead, both kept packed (`PackedText`), the text as sent as
    `raw`. A large document
    is read one top-level member at a time as its chunks are taken (`read_members`), unless
    `whole` asks for it to be read whole at once.

    Raises:
        RecursionError: nesting deeper than the chunker can follow.
        NotStreamable: (when its chunks are taken) the document turned out not to be
            readable member by member: chunk it again, `whole`.
    """
    if not OPENS_OBJECT_OR_ARRAY.match(text):
        return None  # before `sanitize`, which reads a text beyond ASCII whole
    # Minified: the text as sent is kept packed only (its bytes are freed as chunking starts).
    raw = Lines.packed(sent.text) if is_minified(sent) else None
    minified = raw is not None
    text = sanitize(text, keep_crlf=True)
    if not whole and len(text) >= STREAM_MIN_CHARS:
        served = Lines.writing(packed=True) if minified else None  # else it is not kept
        try:
            members = read_members(text, served)
        except NotStreamable:
            pass
        else:
            chunker = JsonChunker(orjson_pretty, served)
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
        lines = Lines.packed(parsed.text)
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
    if parsed.encode is stdlib_pretty:
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
