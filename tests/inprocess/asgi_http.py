"""HTTP exchanges with the real ASGI application, in this process (no daphne, no socket)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
from channels.testing import ApplicationCommunicator
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from localrouter.asgi import application

ACCEPT = "application/json, text/event-stream"
ANSWER_SECONDS = 30.0  # a ceiling for a broken test, not a measurement
LEGACY_VERSION = "2025-06-18"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "in-process-test", "version": "1"},
    },
}


@dataclass
class Answer:
    """A complete HTTP response from /mcp."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body)

    def messages(self) -> list[dict]:
        """The JSON-RPC messages of the answer: its event stream's data, or its JSON body."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            text = self.body.decode()
            return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
        return [self.json()]

    @property
    def error(self) -> dict:
        """The JSON-RPC error of the answer's last message."""
        return self.messages()[-1]["error"]


def http_scope(method: str, headers: dict[str, str], path: str = "/mcp") -> dict:
    """An ASGI HTTP scope as daphne builds it, from headers given as text."""
    raw = [
        (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()
    ]
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), *raw],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


def request_headers(token: str | None, **headers: str) -> dict[str, str]:
    """Headers of a JSON POST; `token` as bearer token, and extra headers (`_` for `-`)."""
    given = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if token is not None:
        given["Authorization"] = f"Bearer {token}"
    given.update({name.replace("_", "-"): value for name, value in headers.items()})
    return given


class Exchange:
    """One HTTP exchange in progress: send the request, read the answer event by event."""

    def __init__(
        self, method: str, headers: dict[str, str], *, app: Any = application, path: str = "/mcp"
    ) -> None:
        self.communicator = ApplicationCommunicator(app, http_scope(method, headers, path))
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body = b""
        self.complete = False

    async def send_body(self, body: bytes, *, chunk_size: int | None = None) -> None:
        """Send the request body, in chunks of `chunk_size` bytes if given."""
        size = chunk_size or max(len(body), 1)
        chunks = [body[i : i + size] for i in range(0, len(body), size)] or [b""]
        for index, chunk in enumerate(chunks):
            more = index < len(chunks) - 1
            await self.communicator.send_input(
                {"type": "http.request", "body": chunk, "more_body": more}
            )

    async def send_json(self, message: dict) -> None:
        await self.send_body(json.dumps(message).encode())

    async def read_until(self, marker: bytes) -> None:
        """Read the streamed answer until `marker` has arrived (the call is under way)."""
        while marker not in self.body:
            assert not self.complete, self.body
            await self.next_event()

    async def next_event(self) -> dict:
        """The next ASGI event the application sends (start or body part)."""
        event = await self.communicator.receive_output(ANSWER_SECONDS)
        if event["type"] == "http.response.start":
            self.status = event["status"]
            self.headers = {
                name.decode("latin-1").lower(): value.decode("latin-1")
                for name, value in event.get("headers", [])
            }
        elif event["type"] == "http.response.body":
            self.body += event.get("body", b"")
            self.complete = not event.get("more_body", False)
        return event

    async def answer(self) -> Answer:
        """Read the rest of the response, then leave as a client does."""
        while not self.complete:
            await self.next_event()
        await self.leave()
        assert self.status is not None
        return Answer(self.status, self.headers, self.body)

    async def leave(self) -> None:
        """The client goes away (as daphne reports after a complete response)."""
        if not self.communicator.future.done():
            await self.communicator.send_input({"type": "http.disconnect"})
        await self.communicator.wait(ANSWER_SECONDS)


async def request(
    method: str,
    headers: dict[str, str],
    body: bytes = b"",
    *,
    chunk_size: int | None = None,
    app: Any = application,
) -> Answer:
    """One complete HTTP exchange with /mcp (of `app`, the ASGI application by default)."""
    exchange = Exchange(method, headers, app=app)
    await exchange.send_body(body, chunk_size=chunk_size)
    return await exchange.answer()


async def post(
    token: str | None, message: dict | bytes, *, app: Any = application, **headers: str
) -> Answer:
    """POST one JSON-RPC message (a dict, or raw bytes) to /mcp."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return await request("POST", request_headers(token, **headers), body, app=app)


async def open_session(token: str, *, app: Any = application) -> dict[str, str]:
    """Initialize a 2025-era session; returns the headers its later requests carry."""
    opened = await post(token, INITIALIZE, app=app)
    assert opened.status == 200, opened.body
    session = {
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "MCP-Protocol-Version": LEGACY_VERSION,
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await post(token, initialized, app=app, **session)).status == 202
    return session


def call(request_id: int, name: str, arguments: dict, **meta: object) -> dict:
    """A `tools/call` request."""
    params: dict = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def hanging_call(request_id: int) -> dict:
    """A call of the echo server's `hang`, which reports progress once, then never answers."""
    return call(request_id, "echo__hang", {"announce": True}, progressToken="hang")


async def once_the_id_is_free(send: Callable[[], Awaitable[Answer]]) -> Answer:
    """Send a request until its id is no longer refused as in flight: the earlier request
    with that id has been told to stop, and its worker is still winding it down."""
    with anyio.fail_after(ANSWER_SECONDS):
        while True:
            answer = await send()
            if answer.status != 400 or "already in flight" not in answer.error["message"]:
                return answer
            await anyio.sleep(0.05)


@asynccontextmanager
async def sdk_client(
    token: str, *, app: Any = application, mode: str = "2026-07-28"
) -> AsyncIterator[Client]:
    """A connected SDK client whose HTTP requests go to `app` in this process.

    For protocol 2026-07-28, where every request is one POST and no GET stream stays open
    (httpx2's ASGI transport hands over a response only once it is complete).
    """
    async with (
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            headers={"Authorization": f"Bearer {token}"},
        ) as http,
        Client(
            streamable_http_client("http://127.0.0.1/mcp", http_client=http), mode=mode
        ) as client,
    ):
        yield client
