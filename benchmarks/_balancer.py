"""A per-request round-robin HTTP/1.1 balancer on 127.0.0.1, for the two-worker benchmark.

Like a reverse proxy without sticky sessions (nginx's default `upstream`), each request
goes to the next worker in turn, whatever connection it came on; a client connection keeps
one connection per worker. It learns which worker owns each MCP session (the one whose
response first carries its `Mcp-Session-Id`) and each 2026-07-28 client (the first worker
that served it, as the gateway claims it), so it can count the requests that reach another
worker than the owner (the gateway forwards those through Redis) and time the `tools/call`
requests of each kind.

Only what the benchmark's clients send is understood: requests with a `Content-Length` body
(or none); responses with a `Content-Length`, a chunked body, or a body up to end of file.

It runs in a process of its own (so that its CPU is not the client's):

    .venv/bin/python benchmarks/_balancer.py --port P WORKER_PORT WORKER_PORT ...

and answers two requests itself: `POST /balancer/reset` (start a fresh tally; counting with
`?recording=1`) and `GET /balancer/tally` (the tally as JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

NO_BODY_STATUSES = (204, 304)


def owner_key(headers: dict[str, str]) -> str | None:
    """What decides the worker that must serve a request: its session (handshake era), or
    its client (2026-07-28: one gateway session per client, claimed by the first worker
    that serves it); None for a request that any worker serves (it opens a session)."""
    if session := headers.get("mcp-session-id"):
        return session
    if headers.get("mcp-protocol-version", "") >= "2026-07-28":
        return "client " + headers.get("authorization", "")
    return None


class WorkerClosed(Exception):
    """The worker closed the connection before it answered (an idle keep-alive ended)."""


def parse_head(head: bytes) -> tuple[str, dict[str, str]]:
    """(first line, headers with lower-case names) of an HTTP/1.1 message head."""
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return lines[0], headers


@dataclass
class Tally:
    """What went through the balancer while `recording`."""

    requests: int = 0
    forwarded: int = 0
    call_seconds: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})

    def as_json(self) -> dict:
        """Counts, and the median tools/call time forwarded and served by the owner (ms)."""
        local, forwarded = self.call_seconds[False], self.call_seconds[True]
        return {
            "requests": self.requests,
            "forwarded": self.forwarded,
            "calls_local": len(local),
            "calls_forwarded": len(forwarded),
            "median_local_ms": statistics.median(local) * 1000 if local else None,
            "median_forwarded_ms": statistics.median(forwarded) * 1000 if forwarded else None,
        }


class RoundRobinBalancer:
    """Listens on a free 127.0.0.1 port; `ports` are the workers' ports."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self._next = 0
        self._owners: dict[str, int] = {}
        self.tally = Tally()
        self.recording = False
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.Task] = set()

    async def serve_forever(self, port: int) -> None:
        self._server = await asyncio.start_server(self._serve_client, "127.0.0.1", port)
        async with self._server:
            await self._server.serve_forever()

    def _control(self, line: str) -> bytes | None:
        """The answer to a request for the balancer itself, or None."""
        target = line.split()[1]
        if target.startswith("/balancer/reset"):
            self.tally = Tally()
            self.recording = "recording=1" in target
            body = b"{}"
        elif target.startswith("/balancer/tally"):
            body = json.dumps(self.tally.as_json()).encode()
        else:
            return None
        head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        return f"{head}content-length: {len(body)}\r\n\r\n".encode() + body

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._clients.add(task)
        workers: dict[int, tuple[asyncio.StreamReader, asyncio.StreamWriter]] = {}
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                line, headers = parse_head(head)
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                answer = self._control(line)
                if answer is not None:
                    writer.write(answer)
                    await writer.drain()
                    continue
                port = self.ports[self._next % len(self.ports)]
                self._next += 1
                keep = await self._relay(port, workers, head + body, line, headers, writer)
                if not keep:
                    return
        finally:
            for _, worker_writer in workers.values():
                worker_writer.close()
            writer.close()
            self._clients.discard(task)

    async def _relay(
        self,
        port: int,
        workers: dict[int, tuple[asyncio.StreamReader, asyncio.StreamWriter]],
        request: bytes,
        line: str,
        headers: dict[str, str],
        client: asyncio.StreamWriter,
    ) -> bool:
        """`_exchange` on this client's connection to the worker; once more on a fresh one
        when the worker had closed the kept-alive connection before answering."""
        for attempt in range(2):
            if port not in workers:
                workers[port] = await asyncio.open_connection("127.0.0.1", port)
            try:
                return await self._exchange(port, workers[port], request, line, headers, client)
            except WorkerClosed:
                workers.pop(port)[1].close()
                if attempt:
                    raise
        return False

    async def _exchange(
        self,
        port: int,
        worker: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        request: bytes,
        line: str,
        headers: dict[str, str],
        client: asyncio.StreamWriter,
    ) -> bool:
        """Relay one request and its response; whether both connections stay usable."""
        worker_reader, worker_writer = worker
        owned = owner_key(headers)
        owner = self._owners.setdefault(owned, port) if owned else port
        forwarded = owner != port
        started = time.perf_counter()
        try:
            worker_writer.write(request)
            response_head = await worker_reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            raise WorkerClosed() from error
        status_line, response_headers = parse_head(response_head)
        created = response_headers.get("mcp-session-id")
        if created and created not in self._owners:
            self._owners[created] = port
        client.write(response_head)
        status = int(status_line.split()[1])
        keep = "close" not in response_headers.get("connection", "").lower()
        if line.startswith("HEAD") or status in NO_BODY_STATUSES:
            pass
        elif "content-length" in response_headers:
            client.write(await worker_reader.readexactly(int(response_headers["content-length"])))
        elif "chunked" in response_headers.get("transfer-encoding", ""):
            await relay_chunks(worker_reader, client)
        else:
            while chunk := await worker_reader.read(65536):
                client.write(chunk)
                await client.drain()
            keep = False
        await client.drain()
        if self.recording:
            self.tally.requests += 1
            self.tally.forwarded += forwarded
            if line.startswith("POST") and b'"tools/call"' in request:
                self.tally.call_seconds[forwarded].append(time.perf_counter() - started)
        return keep


async def relay_chunks(reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
    """Copy a chunked body, chunk by chunk (an event stream's events arrive as they come)."""
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        data = await reader.readexactly(size + 2)  # the chunk and its CRLF
        client.write(size_line + data)
        await client.drain()
        if size == 0:
            return


@contextlib.contextmanager
def per_request_balancer(worker_ports: list[int], port: int, log: Path) -> Iterator[str]:
    """This balancer in a process of its own for the length of the block; yields its base URL.

    Raises:
        RuntimeError: it exited or did not listen within a minute (its log says why).
    """
    from tests.fixtures.http_server import stop_process, wait_for_port

    args = [sys.executable, __file__, "--port", str(port), *map(str, worker_ports)]
    with log.open("wb") as output:
        process = subprocess.Popen(args, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_for_port(process, port, 60)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(process)


def main() -> None:
    parser = argparse.ArgumentParser(description="per-request round robin over 127.0.0.1 ports")
    parser.add_argument("--port", type=int, required=True, help="port to listen on")
    parser.add_argument("workers", type=int, nargs="+", help="the workers' ports")
    options = parser.parse_args()
    asyncio.run(RoundRobinBalancer(options.workers).serve_forever(options.port))


if __name__ == "__main__":
    main()
