"""The requests this worker is serving: a reused id is refused, and shutdown drains them.

The SDK's transport keys a request's response stream by its JSON-RPC id within the
session: a second request with the id of one still running would take over its stream
and leave the first without an answer for ever. At shutdown no new exchange is admitted,
and the requests already running get a grace period to finish; a client's answer to an
upstream's sampling or elicitation request is still let in, since a running call waits
for it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

RequestId = str | int


class DuplicateRequestId(Exception):
    """A request reused the id of one still running in the same session."""

    def __init__(self, request_id: RequestId) -> None:
        super().__init__(f"request id {request_id!r} is already in flight")
        self.request_id = request_id


class ServerStopping(Exception):
    """The worker is shutting down and admits no new exchange."""


class InFlightRequests:
    """Requests (JSON-RPC messages with an id) being served, by session where there is one."""

    def __init__(self) -> None:
        self._by_session: set[tuple[str, type, RequestId]] = set()
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.closed = False

    @contextlib.contextmanager
    def serving(
        self, session_key: str | None, request_id: RequestId | None, *, answer: bool = False
    ) -> Iterator[None]:
        """Admit one exchange for the duration of the block; `answer`: it is the client's
        response to a server-to-client request (admitted while stopping too).

        Raises:
            ServerStopping: `close()` was called (and this is not an answer).
            DuplicateRequestId: the session already has a request with this id running.
        """
        if self.closed and not answer:
            raise ServerStopping()
        if request_id is None:  # a notification, a response, a GET stream or a DELETE
            yield
            return
        key = (session_key, type(request_id), request_id) if session_key else None
        if key in self._by_session:
            raise DuplicateRequestId(request_id)
        if key is not None:
            self._by_session.add(key)
        self._count += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._by_session.discard(key)
            self._count -= 1
            if self._count == 0:
                self._idle.set()

    async def close(self, grace_seconds: float) -> int:
        """Admit nothing more; wait up to `grace_seconds` for the running requests to finish.

        Returns how many are still running.
        """
        self.closed = True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace_seconds)
        return self._count
