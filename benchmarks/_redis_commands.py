"""Counting the commands clients send to one Redis database, from Redis' MONITOR stream.

Commands that Lua scripts run are left out: a script is one command (one round trip).
Give the benchmark a database no one else uses, or their commands are counted too.
"""

from __future__ import annotations

import collections
import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

# +1700000000.123456 [11 127.0.0.1:50000] "EVALSHA" "81df..." ...
_LINE = re.compile(rb'^\+[\d.]+ \[(\d+) ([^\]]+)\] "([^"]+)"')


class RedisCommands:
    """Commands by name sent to the database of `url` since `start`, read in a thread."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._address = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._database = (parts.path.strip("/") or "0").encode()
        self._counts: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._thread = threading.Thread(target=self._read, name="redis-monitor", daemon=True)

    def start(self) -> None:
        self._socket = socket.create_connection(self._address)
        self._socket.sendall(b"MONITOR\r\n")
        self._thread.start()

    def counts(self) -> collections.Counter[str]:
        """What was counted so far (a copy)."""
        with self._lock:
            return collections.Counter(self._counts)

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                data = self._socket.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            *lines, pending = (pending + data).split(b"\r\n")
            with self._lock:
                for line in lines:
                    match = _LINE.match(line)
                    if match and match[1] == self._database and match[2] != b"lua":
                        self._counts[match[3].decode().upper()] += 1

    def stop(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
            self._socket.close()
        self._thread.join(5)


@contextlib.contextmanager
def redis_commands(url: str) -> Iterator[RedisCommands]:
    counter = RedisCommands(url)
    counter.start()
    try:
        yield counter
    finally:
        counter.stop()
