"""The seam to Twisted (daphne's HTTP): its private names, in one place.

Twisted parses each request's Content-Type with the `email` package (`_parseContentType`,
a pure bytes -> bytes function); the header is one of a handful of values, so the parse
is memoised.

A Twisted TCP connection that has something to write asks the reactor to watch its socket
for writability (`startWriting`), writes once the loop reports it writable, and stops the
watch again; on daphne's asyncio reactor that is two changes to the loop's epoll set and a
loop turn per response. `write_on_the_next_turn` has an accepted connection (daphne's)
write what it holds on the loop's next turn instead, straight to the socket, all the
writes of this turn (a response's status line, headers and body) in one send; only what
the socket does not take then waits for writability, the reactor's own way, and so does a
connection that is closing (the reactor ends it once its last bytes are out).

An accepted connection's own address (`getHost`, which daphne reads for every request's
ASGI `server`) is one `getsockname` call each time; it cannot change, so it is read once.

Twisted is imported only inside the functions: daphne must set up its reactor's event loop
first (`gateway/serving/daphne_server.py`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from types import ModuleType
from typing import Any

from gateway.seams.private_names import PrivateName, verify

logger = logging.getLogger(__name__)

SEAM = __name__
LIBRARY = "Twisted"
CONTENT_TYPES_REMEMBERED = 64
_PATCHED = "__localrouter_seam__"  # marks Twisted's methods this seam has replaced

# Accepted connections with writes to send on the loop's next turn (insertion-ordered).
_writes_due: dict[Any, None] = {}


def _http() -> ModuleType:
    from twisted.web import http

    return http


def _tcp() -> ModuleType:
    from twisted.internet import tcp

    return tcp


def check() -> None:
    """Verify that the installed Twisted still has every private name this seam uses.

    Raises:
        SeamBroken: one is gone; the message names this module, Twisted's version and it.
    """
    server = _tcp().Server
    verify(
        SEAM,
        LIBRARY,
        (
            PrivateName(_http(), "_parseContentType"),
            PrivateName(server, "_writeDisconnecting"),
            # The write path this seam steps into: public names it relies on the meaning of.
            PrivateName(server, "startWriting"),
            PrivateName(server, "doWrite"),
            PrivateName(server, "dataBuffer"),
            PrivateName(server, "disconnecting"),
            PrivateName(server, "getHost"),
            PrivateName(server, "abortConnection"),
        ),
    )


def memoise_content_type_parse() -> None:
    """Have Twisted remember its recent Content-Type parses (once, however often called).

    Raises:
        SeamBroken: Twisted no longer parses it with `http._parseContentType`.
    """
    check()
    http = _http()
    parse = http._parseContentType
    if not hasattr(parse, "cache_info"):
        http._parseContentType = functools.lru_cache(CONTENT_TYPES_REMEMBERED)(parse)


def write_on_the_next_turn() -> None:
    """Have accepted TCP connections send their writes on the loop's next turn, in one send
    each, rather than register for writability first (once, however often called).

    Raises:
        SeamBroken: Twisted's connections no longer write as this seam expects.
    """
    check()
    server = _tcp().Server
    if getattr(server.startWriting, _PATCHED, False):
        return
    register = server.startWriting  # Twisted's own: the reactor watches for writability

    def start_writing(connection: Any) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on a running loop: nothing would run the flush
            register(connection)
            return
        if not _writes_due:
            loop.call_soon(_send_writes_due, register)
        _writes_due[connection] = None

    setattr(start_writing, _PATCHED, True)
    server.startWriting = start_writing


def _send_writes_due(register: Any) -> None:
    """Send what each connection due holds; what a socket does not take, and a connection
    that is closing, are left to the reactor (`register`). A connection whose send raises
    is aborted, as the reactor would end it, and the others are still sent."""
    due = list(_writes_due)
    _writes_due.clear()
    for connection in due:
        try:
            _send_now(connection, register)
        except Exception:
            logger.exception("writing to a client connection failed; it is aborted")
            connection.abortConnection()


def _send_now(connection: Any, register: Any) -> None:
    if not connection.connected:
        return  # lost meanwhile: Twisted has dropped its buffer
    if connection.disconnecting or connection._writeDisconnecting:
        register(connection)  # the reactor closes it once its last bytes are out
        return
    failed = connection.doWrite()
    if failed or connection.dataBuffer:
        # A full socket (the rest once it is writable), or a failed send, which the
        # reactor's own doWrite meets again and turns into the connection's loss.
        register(connection)


def remember_server_addresses() -> None:
    """Have accepted TCP connections read their own address once (once, however often
    called).

    Raises:
        SeamBroken: Twisted's connections no longer have `getHost`.
    """
    check()
    server = _tcp().Server
    if getattr(server.getHost, _PATCHED, False):
        return
    get_host = server.getHost

    @functools.wraps(get_host)
    def remembered_host(connection: Any) -> Any:
        address = connection.__dict__.get(_PATCHED)
        if address is None:
            address = connection.__dict__[_PATCHED] = get_host(connection)
        return address

    setattr(remembered_host, _PATCHED, True)
    server.getHost = remembered_host
