"""The stdio transport to an upstream: the SDK's process handling, the gateway's own reader.

The process is started and stopped as the SDK's `stdio_client` does it
(`gateway.seams.mcp_sdk_seam`: its own process group; on close, stdin closed, then SIGTERM
and SIGKILL to the whole tree, every wait bounded). Its stdout is read here instead: linear
in a message's size (`MessageLines`), at most `spec.max_message_bytes` of one message kept,
and a large message parsed in a worker thread so the event loop goes on serving other calls
meanwhile. A message over the limit ends the transport with an `UpstreamError` as its last
item, which names the limit and the setting; `watch_closed` hands it to the session as the
reason.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TextIO

import anyio
import anyio.lowlevel
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from gateway.seams.mcp_sdk_seam import (
    STDIO_WRITER_FLUSH_TIMEOUT,
    ServerProcess,
    TransportStreams,
    drain_stdout,
    spawn_stdio_server,
    stop_stdio_server,
)
from gateway.upstreams.errors import UpstreamError
from gateway.upstreams.message_lines import MessageLines, TooLarge
from gateway.upstreams.spec import MAX_MESSAGE_SETTING, UpstreamSpec

logger = logging.getLogger(__name__)

READ_CHUNK = 1 << 20
"""Most bytes taken from the pipe at once (a pipe hands over what it holds, 64 KiB or so)."""
THREAD_PARSE_BYTES = 1 << 20
"""Messages above this are decoded and validated in a worker thread, off the event loop."""


def too_large(spec: UpstreamSpec) -> UpstreamError:
    """The error for a message over `spec.max_message_bytes`: it names the limit and setting."""
    return UpstreamError(
        spec.name,
        "protocol",
        f"it sent a message of more than {spec.max_message_bytes / 2**20:g} MiB, the limit "
        f"({MAX_MESSAGE_SETTING}); the upstream was stopped and starts again on the next call",
    )


def parse_message(line: bytes) -> SessionMessage | Exception:
    """One stdout line as a JSON-RPC message; what does not parse is returned, not raised
    (the session counts it as stdout noise: `stdout_noise.StdoutNoise`)."""
    try:
        text = line.decode("utf-8", "replace")
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError included
        return exc


async def read_messages(
    process: ServerProcess, limit: int, send: MemoryObjectSendStream[SessionMessage | Exception]
) -> TooLarge | None:
    """Send every message of the process's stdout until it ends; stop at the first message
    over `limit` bytes and return its `TooLarge`.

    Raises:
        anyio.BrokenResourceError: the session stopped listening.
        anyio.ClosedResourceError: shutdown closed stdout or the stream under the read.
    """
    assert process.stdout is not None, "the server process is spawned with pipes"
    lines = MessageLines(limit)
    while True:
        try:
            chunk = await process.stdout.receive(READ_CHUNK)
        except anyio.EndOfStream:
            return None
        found = lines.feed(chunk)
        found.reverse()
        while found:
            line = found.pop()
            if isinstance(line, TooLarge):
                return line
            if len(line) > THREAD_PARSE_BYTES:
                message = await anyio.to_thread.run_sync(parse_message, line)
            else:
                message = parse_message(line)
            del line  # a large message is held by its parsed form alone while it waits
            await send.send(message)


class _Pipes:
    """A started process's stdin and stdout, bridged to the session's two streams."""

    def __init__(self, spec: UpstreamSpec, process: ServerProcess) -> None:
        self.spec = spec
        self.process = process
        self.read_writer, self.read_stream = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](0)
        self.write_stream, self.write_reader = anyio.create_memory_object_stream[SessionMessage](0)
        self.writer_done = anyio.Event()
        self.shutting_down = False

    async def read(self) -> None:
        """Stdout to the session, and the reason when a message is over the limit."""
        spec = self.spec
        try:
            async with self.read_writer:
                if await read_messages(self.process, spec.max_message_bytes, self.read_writer):
                    error = too_large(spec)
                    logger.warning("upstream %r: %s", spec.name, error.message)
                    await self.read_writer.send(error)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            if not self.shutting_down:
                logger.warning("upstream %r: reading its stdout failed", spec.name)
        finally:
            # Keep a server that is still writing from blocking on a full pipe, so it can
            # read its closed stdin and exit; ends when shutdown closes the pipe.
            await drain_stdout(self.process)

    async def write(self) -> None:
        """The session's messages to stdin, one line each."""
        assert self.process.stdin is not None
        try:
            async with self.write_reader:
                async for session_message in self.write_reader:
                    json = session_message.message.model_dump_json(
                        by_alias=True, exclude_unset=True
                    )
                    await self.process.stdin.send((json + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server may still be alive: end the read side, so the session sees the
            # connection end instead of a request waiting for ever.
            await self.read_writer.aclose()
        finally:
            self.writer_done.set()

    async def shutdown(self) -> None:
        """As the SDK's: unblock the reader into its drain, give the writer a bounded moment
        to flush, then stop the process tree and close the streams."""
        self.shutting_down = True
        self.read_stream.close()
        self.write_stream.close()
        with anyio.move_on_after(STDIO_WRITER_FLUSH_TIMEOUT):
            await self.writer_done.wait()
        await stop_stdio_server(self.process)
        for stream in (self.read_stream, self.write_stream, self.read_writer, self.write_reader):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()


@asynccontextmanager
async def stdio_transport(spec: UpstreamSpec, errlog: TextIO) -> AsyncIterator[TransportStreams]:
    """Start `spec`'s command and exchange newline-delimited JSON-RPC with it.

    Raises:
        OSError: the process could not be started.
    """
    assert spec.command is not None  # UpstreamSpec validates this
    process = await spawn_stdio_server(
        spec.command, list(spec.args), get_default_environment() | spec.env, errlog, spec.cwd
    )
    # The spawn succeeded; no awaits until the task group is entered, or a cancellation
    # delivered in the gap would leak the live process.
    pipes = _Pipes(spec, process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(pipes.read)
        tg.start_soon(pipes.write)
        try:
            yield pipes.read_stream, pipes.write_stream
        finally:
            pipes.shutting_down = True
            # Shutdown must finish under the caller's cancellation too, or the process
            # would leak; every wait inside it is bounded.
            with anyio.CancelScope(shield=True):
                await pipes.shutdown()
            tg.cancel_scope.cancel()
