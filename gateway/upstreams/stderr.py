"""An upstream process's stderr, logged line by line with its secrets redacted.

Memory and log volume are bounded whatever the upstream writes: at most `MAX_LINE_BYTES`
of one line are read into memory (a longer line is cut and the rest of it skipped), and
each upstream gets at most `LOG_LINES_PER_WINDOW` log lines every `LOG_WINDOW_SECONDS`,
the lines over that counted and reported in one "suppressed N stderr lines" line.

The last lines of each upstream are also kept in memory (per worker) for the admin,
numbered, so a caller can ask for just the lines written since a mark (`stderr_mark`).
They are redacted when read: a line that is neither logged nor read costs no redaction.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import BinaryIO, TextIO

import anyio

from gateway.upstreams.errors import redact_line
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger("gateway.upstreams.stderr")
MAX_LINE_CHARS = 2000
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS
"""Bytes of one line read into memory: room for `MAX_LINE_CHARS` characters of UTF-8."""
TAIL_LINES = 40
LOG_LINES_PER_WINDOW = 100
LOG_WINDOW_SECONDS = 60.0
DRAIN_SECONDS = 1.0
"""How long closing waits for the last lines of an exited child to be read and kept."""


class LogBudget:
    """At most `LOG_LINES_PER_WINDOW` log lines in each window of `LOG_WINDOW_SECONDS`."""

    def __init__(self) -> None:
        self.window_start = -math.inf
        self.logged = 0
        self.suppressed = 0

    def admit(self, now: float) -> tuple[bool, int]:
        """Whether one more line may be logged now, and how many lines were suppressed in a
        window that has just ended (to report before it)."""
        ended = 0
        if now - self.window_start >= LOG_WINDOW_SECONDS:
            ended, self.suppressed = self.suppressed, 0
            self.window_start, self.logged = now, 0
        if self.logged < LOG_LINES_PER_WINDOW:
            self.logged += 1
            return True, ended
        self.suppressed += 1
        return False, ended

    def take_suppressed(self) -> int:
        """The lines suppressed and not yet reported, now reported."""
        suppressed, self.suppressed = self.suppressed, 0
        return suppressed


class _Tail:
    """One upstream's last lines (each with the secrets to redact from it), how many it has
    written in all, and its log budget (this worker)."""

    def __init__(self) -> None:
        self.lines: deque[tuple[str, tuple[str, ...]]] = deque(maxlen=TAIL_LINES)
        self.written = 0
        self.budget = LogBudget()


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
    return [redact_line(line, secrets) for line, secrets in lines[-new:]]


def read_lines(pipe: BinaryIO) -> Iterator[str]:
    """Each line of `pipe` (right-stripped), at most `MAX_LINE_CHARS` of it; a longer one is
    cut and says how long it was. Never holds more than `MAX_LINE_BYTES` of one line."""
    while head := pipe.readline(MAX_LINE_BYTES):
        length, last = len(head), head
        # The rest of a line too long to keep is read piece by piece and dropped.
        while not last.endswith(b"\n") and (last := pipe.readline(MAX_LINE_BYTES)):
            length += len(last)
        length -= last.endswith(b"\n")
        line = head.decode("utf-8", "replace").rstrip()
        if length > len(head) - head.endswith(b"\n") or len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]} [cut: the line had {length:,} bytes]"
        yield line


def _pump(spec: UpstreamSpec, pipe: BinaryIO) -> None:
    secrets = spec.secret_values()
    with _lock:
        tail = _tails.setdefault(spec.name, _Tail())
    with pipe:
        for line in read_lines(pipe):
            if not line:
                continue
            with _lock:
                tail.lines.append((line, secrets))
                tail.written += 1
                log, suppressed = tail.budget.admit(time.monotonic())
            if suppressed:
                _report_suppressed(spec.name, suppressed)
            if log:
                logger.info("upstream %s: %s", spec.name, redact_line(line, secrets))
    with _lock:
        suppressed = tail.budget.take_suppressed()
    if suppressed:
        _report_suppressed(spec.name, suppressed)


def _report_suppressed(upstream: str, count: int) -> None:
    logger.info(
        "upstream %s: suppressed %d stderr lines (at most %d are logged every %gs)",
        upstream,
        count,
        LOG_LINES_PER_WINDOW,
        LOG_WINDOW_SECONDS,
    )


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
