"""Newline-delimited messages cut out of a byte stream, in time linear in its size.

The SDK's stdio reader joins its whole buffer to each new chunk and splits it again, so a
message of N bytes arriving in chunks of C costs O(N²/C) (a 300 MB message: minutes of
CPU). Here each chunk is searched for newlines once and kept in a list until its message
ends, then joined once. A message that grows past the cap is not kept: it is reported as
`TooLarge` the moment it passes, and the rest of it is skipped up to its newline.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TooLarge:
    """A message passed the cap of `limit` bytes; none of it is kept."""

    limit: int


class MessageLines:
    """Splits a stream fed chunk by chunk into its lines, each at most `limit` bytes."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("the message limit must be positive")
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False

    @property
    def pending(self) -> int:
        """Bytes held of the message not yet ended (never more than `limit`)."""
        return self._size

    def feed(self, chunk: bytes) -> list[bytes | TooLarge]:
        """The messages `chunk` ends (without their newline), in order; a `TooLarge` in place
        of one that passed the limit (reported once, when it passes)."""
        found: list[bytes | TooLarge] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._add(chunk[start:end], found)
            if not self._skipping:
                found.append(self._parts[0] if len(self._parts) == 1 else b"".join(self._parts))
            self._parts, self._size, self._skipping = [], 0, False
            start = end + 1
        if start < len(chunk):
            self._add(chunk[start:] if start else chunk, found)
        return found

    def _add(self, piece: bytes, found: list[bytes | TooLarge]) -> None:
        if self._skipping:
            return
        if self._size + len(piece) > self.limit:
            self._parts, self._size, self._skipping = [], 0, True
            found.append(TooLarge(self.limit))
            return
        self._parts.append(piece)
        self._size += len(piece)
