"""Text normalisation shared by chunking, storing, reading and previews."""

import re
from typing import NamedTuple

LINE_PART_CHARS = 2000
"""Lines longer than this are served (and chunked) in parts of this many characters."""

UTF8_BLOCK_CHARS = 1 << 14
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LONE_CARRIAGE_RETURN = re.compile("\r(?!\n)")


def sanitize(text: str, *, keep_crlf: bool = False) -> str:
    """Return `text` safe for UTF-8 and SQLite: no NUL, no lone surrogates, `\\n` line ends.

    `keep_crlf` leaves `\\r\\n` line ends alone (a lone `\\r` still becomes `\\n`), so a
    large clean text is not copied where line ends do not matter (JSON is parsed and
    written anew). Documents served by line are made by `encode_document` instead.
    """
    text = without_lone_surrogates(text)
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if "\r" in text:
        if not keep_crlf:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        elif text.count("\r") != text.count("\r\n"):
            text = _LONE_CARRIAGE_RETURN.sub("\n", text)
    return text


def without_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate (which has no UTF-8 form) replaced by U+FFFD."""
    # isascii is O(1) on CPython; only non-ASCII text can hold surrogates.
    if not text.isascii() and not _encodes(text):
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


class EncodedDocument(NamedTuple):
    """A document's UTF-8 text as `encode_document` makes it, and the size of the original."""

    data: bytes | bytearray
    source_bytes: int
    """`utf8_size` of the text as given (the same as `len(data)`: a lone surrogate and the
    U+FFFD replacing it both take 3 bytes)."""


def encode_document(text: str) -> EncodedDocument:
    """Return `text` as UTF-8, exactly as given: `\\r\\n` and lone `\\r` line ends, tabs, NUL
    and every other control character are kept (IndexRead gives them back).

    Only a lone surrogate, which has no UTF-8 form (JSON can carry `"\\ud800"`), becomes
    U+FFFD. ASCII text is encoded at once (one buffer of its exact size); any other a block
    at a time, into one buffer: the text is never copied whole as a `str` (which can take 4
    bytes a character).
    """
    if text.isascii():  # O(1) in CPython
        data = text.encode()
        return EncodedDocument(data, len(data))
    data = bytearray()
    for start in range(0, len(text), UTF8_BLOCK_CHARS):
        block = text[start : start + UTF8_BLOCK_CHARS]
        try:
            data += block.encode("utf-8")
        except UnicodeEncodeError:
            data += _LONE_SURROGATE.sub("\ufffd", block).encode("utf-8")
    return EncodedDocument(data, len(data))


def split_lines(text: str) -> list[str]:
    """Split on `\\n` only, so line numbers match what an editor shows; no trailing empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _encodes(text: str) -> bool:
    """True when `text` is valid for UTF-8; checked a block at a time (no full copy)."""
    try:
        for start in range(0, len(text), UTF8_BLOCK_CHARS):
            text[start : start + UTF8_BLOCK_CHARS].encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utf8_size(text: str) -> int:
    """Return the UTF-8 byte length of `text`, counting a lone surrogate as three bytes."""
    if text.isascii():
        return len(text)
    # Block by block: encoding a 20 MB text at once would hold a 20 MB copy.
    blocks = range(0, len(text), UTF8_BLOCK_CHARS)
    return sum(
        len(text[start : start + UTF8_BLOCK_CHARS].encode("utf-8", "surrogatepass"))
        for start in blocks
    )


def part_count(length: int) -> int:
    """Return how many `N-M` parts a line of `length` characters is served in (1 if not split)."""
    return max(1, -(-length // LINE_PART_CHARS))


def one_line(text: str, max_chars: int = 120) -> str:
    """Collapse whitespace to single spaces and shorten to `max_chars` with an ellipsis."""
    # Fast path: every whitespace character but " " is unprintable, so printable text with
    # no doubled, leading or trailing space is already flat.
    if (
        len(text) <= max_chars
        and text.isprintable()
        and "  " not in text
        and text[:1] != " "
        and text[-1:] != " "
    ):
        return text
    flat = " ".join(text.split())
    return flat if len(flat) <= max_chars else flat[: max_chars - 1].rstrip() + "…"
