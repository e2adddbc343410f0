"""A loopback HTTP proxy that adds an Authorization header to every request.

The MCP Inspector CLI 0.15 cannot send headers, so its test reaches /mcp through
this. Each request gets `Connection: close`, so one TCP connection carries one
request and the proxy only has to edit request heads.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager

from tests.fixtures.http_server import free_port


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


def _edit_head(head: bytes, authorization: str) -> bytes:
    lines = [
        line
        for line in head.split(b"\r\n")
        if not line.lower().startswith((b"authorization:", b"connection:"))
    ]
    extra = [f"Authorization: {authorization}".encode(), b"Connection: close"]
    return b"\r\n".join([lines[0], *extra, *lines[1:]])


@contextmanager
def header_proxy(target_port: int, authorization: str):
    """Run the proxy in a thread; yield its port."""
    port = free_port()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop = asyncio.Event()

    async def handle(client_reader, client_writer) -> None:
        head = await client_reader.readuntil(b"\r\n\r\n")
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target_port)
        upstream_writer.write(_edit_head(head[:-4], authorization) + b"\r\n\r\n")
        await asyncio.gather(
            _pipe(client_reader, upstream_writer), _pipe(upstream_reader, client_writer)
        )

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
