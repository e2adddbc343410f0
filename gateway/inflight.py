"""Request ids in flight per handshake-era session, so that a reused id is refused.

The SDK's transport keys a request's response stream by its JSON-RPC id within the
session: a second request with the id of one still running would take over its stream
and leave the first without an answer for ever.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

RequestId = str | int


class DuplicateRequestId(Exception):
    """A request reused the id of one still running in the same session."""

    def __init__(self, request_id: RequestId) -> None:
        super().__init__(f"request id {request_id!r} is already in flight")
        self.request_id = request_id


class InFlightRequests:
    """(session id, request id) pairs of the requests this worker is serving."""

    def __init__(self) -> None:
        self._running: set[tuple[str, type, RequestId]] = set()

    @contextmanager
    def serving(self, session_id: str | None, request_id: RequestId | None) -> Iterator[None]:
        """Hold the id for the duration of the block.

        Raises:
            DuplicateRequestId: the session already has a request with this id running.
        """
        if session_id is None or request_id is None:
            yield
            return
        key = (session_id, type(request_id), request_id)
        if key in self._running:
            raise DuplicateRequestId(request_id)
        self._running.add(key)
        try:
            yield
        finally:
            self._running.discard(key)
