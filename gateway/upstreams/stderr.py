"""An upstream process's stderr, logged line by line with its secrets redacted.

The last lines of each upstream are also kept in memory (per worker) for the admin.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import BinaryIO, TextIO

from gateway.upstreams.errors import redact_line
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger("gateway.upstreams.stderr")
MAX_LINE_CHARS = 2000
TAIL_LINES = 40
_tails: dict[str, deque[str]] = {}


def stderr_tail(upstream: str) -> list[str]:
    """The last lines (redacted) this worker's processes of `upstream` wrote to stderr."""
    return list(_tails.get(upstream, ()))


def _pump(spec: UpstreamSpec, pipe: BinaryIO) -> None:
    secrets = spec.secret_values()
    tail = _tails.setdefault(spec.name, deque(maxlen=TAIL_LINES))
    with pipe:
        for raw in pipe:
            line = raw.decode("utf-8", "replace").rstrip()[:MAX_LINE_CHARS]
            if line:
                line = redact_line(line, secrets)
                tail.append(line)  # deque.append is atomic: the admin reads from another thread
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
