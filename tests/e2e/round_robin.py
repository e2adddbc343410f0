"""A loopback TCP balancer that hands each new connection to the next backend in turn."""

from __future__ import annotations

import asyncio
import itertools
import threading
from contextlib import contextmanager

from tests.e2e.header_proxy import _pipe
from tests.fixtures.http_server import free_port


@contextmanager
def round_robin(backend_ports: list[int]):
    """Run the balancer in a thread; yield its port."""
    port = free_port()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop = asyncio.Event()
    turns = itertools.cycle(backend_ports)

    async def handle(client_reader, client_writer) -> None:
        backend_reader, backend_writer = await asyncio.open_connection("127.0.0.1", next(turns))
        await asyncio.gather(
            _pipe(client_reader, backend_writer), _pipe(backend_reader, client_writer)
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
