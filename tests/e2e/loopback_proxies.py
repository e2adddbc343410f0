"""Small loopback TCP proxies for end-to-end tests, each running in a thread of its own.

- `header_proxy`: adds an Authorization header to every request (the MCP Inspector CLI
  0.15 cannot send headers). Each request gets `Connection: close`, so one TCP
  connection carries one request and only request heads need editing.
- `round_robin`: hands each new connection to the next backend in turn, like a plain
  load balancer in front of several workers.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from tests.fixtures.http_server import free_port

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _splice(client: tuple, backend: tuple) -> None:
    await asyncio.gather(_pipe(client[0], backend[1]), _pipe(backend[0], client[1]))


@contextmanager
def _serving(handle: Handler) -> Iterator[int]:
    """Serve `handle` on a free loopback port from a thread; yield the port."""
    port = free_port()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop = asyncio.Event()

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port)
        ready.set()
        await stop.wait()
        server.close()
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            task.cancel()
        await asyncio.sleep(0)

    thread = threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield port
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(5)
        loop.close()


def _edit_head(head: bytes, authorization: str) -> bytes:
    lines = [
        line
        for line in head.split(b"\r\n")
        if not line.lower().startswith((b"authorization:", b"connection:"))
    ]
    extra = [f"Authorization: {authorization}".encode(), b"Connection: close"]
    return b"\r\n".join([lines[0], *extra, *lines[1:]])


@contextmanager
def header_proxy(target_port: int, authorization: str) -> Iterator[int]:
    """Forward to `target_port`, adding `Authorization: <authorization>`; yield the port."""

    async def handle(reader, writer) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        backend = await asyncio.open_connection("127.0.0.1", target_port)
        backend[1].write(_edit_head(head[:-4], authorization) + b"\r\n\r\n")
        await _splice((reader, writer), backend)

    with _serving(handle) as port:
        yield port


@contextmanager
def round_robin(backend_ports: list[int]) -> Iterator[int]:
    """Hand each connection to the next of `backend_ports`; yield the balancer's port."""
    turns = itertools.cycle(backend_ports)

    async def handle(reader, writer) -> None:
        backend = await asyncio.open_connection("127.0.0.1", next(turns))
        await _splice((reader, writer), backend)

    with _serving(handle) as port:
        yield port
