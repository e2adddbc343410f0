"""An upstream process's stderr, logged line by line with its secrets redacted.

The last lines of each upstream are also kept in memory (per worker) for the admin,
numbered, so a caller can ask for just the lines written since a mark (`stderr_mark`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import BinaryIO, TextIO

import anyio

from gateway.upstreams.errors import redact_line
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger("gateway.upstreams.stderr")
MAX_LINE_CHARS = 2000
TAIL_LINES = 40
DRAIN_SECONDS = 1.0
"""How long closing waits for the last lines of an exited child to be read and kept."""


class _Tail:
    """One upstream's last lines and how many it has written in all (this worker)."""

    def __init__(self) -> None:
        self.lines: deque[str] = deque(maxlen=TAIL_LINES)
        self.written = 0


_tails: dict[str, _Tail] = {}
_lock = threading.Lock()  # pump threads write, the admin reads from another thread


def stderr_mark(upstream: str) -> int:
    """A mark for `stderr_tail(upstream, since=...)`: how many lines it has written so far."""
    with _lock:
        tail = _tails.get(upstream)
        return tail.written if tail else 0


def stderr_tail(upstream: str, since: int = 0) -> list[str]:
    """The last lines (redacted) this worker's processes of `upstream` wrote to stderr;
    with `since` (a `stderr_mark`), only those written after that mark."""
    with _lock:
        tail = _tails.get(upstream)
        if tail is None:
            return []
        lines = list(tail.lines)
        new = tail.written - since
    if new <= 0:
        return []
    return lines[-new:]


def _pump(spec: UpstreamSpec, pipe: BinaryIO) -> None:
    secrets = spec.secret_values()
    with _lock:
        tail = _tails.setdefault(spec.name, _Tail())
    with pipe:
        for raw in pipe:
            line = raw.decode("utf-8", "replace").rstrip()[:MAX_LINE_CHARS]
            if line:
                line = redact_line(line, secrets)
                with _lock:
                    tail.lines.append(line)
                    tail.written += 1
                logger.info("upstream %s: %s", spec.name, line)


@asynccontextmanager
async def stderr_relay(spec: UpstreamSpec) -> AsyncIterator[TextIO]:
    """A file for the child's stderr; a thread logs what arrives until the child closes it."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb")
    writer = os.fdopen(write_fd, "w")
    thread = threading.Thread(target=_pump, args=(spec, reader), daemon=True)
    thread.start()
    try:
        yield writer
    finally:
        # The child holds its own copy: the thread ends when the child has exited too.
        writer.close()
        # Let it keep the child's last lines before the caller looks at them (a failed
        # start shows them); bounded, in case a descendant still holds the pipe open.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(thread.join, DRAIN_SECONDS)
