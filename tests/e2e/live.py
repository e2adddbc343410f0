"""A real LocalRouter for end-to-end tests: daphne on loopback with real upstreams.

Workers start as `make serve` starts one (`manage.py serve`), under daphne, the server the
project is built on; `make serve`'s default is uvicorn, which `test_http_servers.py`,
`test_several_workers.py` and `test_make_serve.py` run too (`LOCALROUTER_SERVER`)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
from django.contrib.auth.models import User
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from clients.services import client_create
from gateway.models import Upstream
from tests.e2e import gateway_db
from tests.e2e.loopback_proxies import round_robin
from tests.fixtures.http_server import ECHO_SERVER, free_port, stop_process, wait_for_port

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "fixtures" / "servers"
NODE_BIN = ROOT / "node_modules" / ".bin"


def add_upstreams_and_clients(upstreams: list[dict], clients: list[dict]) -> dict[str, str]:
    """Create the upstreams and clients (ORM code); the clients' tokens by name."""
    for row in upstreams:
        Upstream.objects.create(**row)
    tokens = {}
    for row in clients:
        names = row.get("upstreams")
        client, token = client_create(
            name=row["name"],
            upstreams=None if names is None else Upstream.objects.by_names(names),
        )
        for name, value in row.get("set", {}).items():
            setattr(client, name, value)
        client.save()
        tokens[row["name"]] = token
    return tokens


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}


class ToolsChanged:
    """A client message handler that notices `notifications/tools/list_changed`."""

    def __init__(self) -> None:
        self._event = anyio.Event()

    async def __call__(self, message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._event.set()

    async def wait(self, seconds: float = 10) -> None:
        """Wait for the next notice (one that already came counts), then watch afresh."""
        with anyio.fail_after(seconds):
            await self._event.wait()
        self._event = anyio.Event()


@dataclass
class LiveGateway:
    """A running daphne serving LocalRouter, and the tokens of its clients."""

    url: str
    data_dir: Path
    env: dict[str, str]
    tokens: dict[str, str]
    process: subprocess.Popen | None = None
    log_path: Path | None = None
    extra: dict = field(default_factory=dict)

    def manage(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def orm[T](self, function: Callable[[], T]) -> T:
        """`function()` run with the ORM on this gateway's database (no `manage.py shell`)."""
        return gateway_db.current().run(self.data_dir, function)

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path else ""

    def http(self, token: str | None, **headers: str) -> httpx2.AsyncClient:
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))

    @asynccontextmanager
    async def client(
        self,
        name: str = "alice",
        *,
        mode: str = "legacy",
        headers: dict[str, str] | None = None,
        **kwargs,
    ):
        """An SDK client connected through the gateway as the named client (its HTTP requests
        carry `headers` too)."""
        http_client = self.http(self.tokens[name], **(headers or {}))
        async with http_client as http:  # the SDK leaves a given client open
            transport = streamable_http_client(self.url, http_client=http, max_sse_event_size=None)
            async with Client(transport, mode=mode, **kwargs) as client:
                yield client


def start_daphne(live: LiveGateway, port: int, log_path: Path) -> subprocess.Popen:
    """One more worker for `live`'s database and settings, started as `make serve` starts
    one: daphne, or uvicorn when `live.env` says LOCALROUTER_SERVER=uvicorn."""
    args = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=live.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    wait_for_port(process, port, 90)  # a guard: parallel test workers may share a busy machine
    return process


def start_gateway(tmp: Path, upstreams: list[dict], clients: list[dict], **env: str) -> LiveGateway:
    """Migrate a fresh database, add upstreams and clients, and start daphne."""
    port = free_port()
    environment = {
        **os.environ,
        "LOCALROUTER_DATA_DIR": str(tmp),
        "LOCALROUTER_ALLOWED_ORIGINS": "http://127.0.0.1:*,https://allowed.example",
        # These tests want every upstream in the first catalog; tests/e2e/test_start_budget.py
        # measures the real budget.
        "LOCALROUTER_UPSTREAM_START_BUDGET": "120",
        # Session records and upstream changes show up within a fraction of a second.
        "LOCALROUTER_RECORD_FLUSH_SECONDS": "0.3",
        "LOCALROUTER_UPSTREAM_LIST_CACHE_SECONDS": "0.3",
        # Tests that add tools at runtime expect them listed; test_guardrails.py holds them.
        "LOCALROUTER_HOLD_NEW_TOOLS": "false",
        # Gateways of other test files share the test Redis: each owns its own clients.
        "LOCALROUTER_OWNERS_KEY_PREFIX": f"localrouter:test-{uuid.uuid4().hex}:owner:",
        "LOCALROUTER_SERVER": "daphne",
        **env,
    }
    environment.pop("DATABASE_URL", None)
    live = LiveGateway(url=f"http://127.0.0.1:{port}/mcp", data_dir=tmp, env=environment, tokens={})
    gateway_db.current().prepare(tmp, environment)
    live.tokens = live.orm(lambda: add_upstreams_and_clients(upstreams, clients))
    live.log_path = tmp / "daphne.log"
    live.process = start_daphne(live, port, live.log_path)
    return live


@contextmanager
def behind_a_balancer(live: LiveGateway) -> Iterator[LiveGateway]:
    """A second worker for `live` and a round-robin balancer in front of both, for a `with`
    block; their /mcp URLs are in `live.extra` as `first`, `second` and `balanced`."""
    second_port = free_port()
    second = start_daphne(live, second_port, live.data_dir / "daphne-2.log")
    first_port = int(live.url.rsplit(":", 1)[1].split("/")[0])
    try:
        with round_robin([first_port, second_port]) as balancer:
            live.extra.update(
                first=live.url,
                second=f"http://127.0.0.1:{second_port}/mcp",
                balanced=f"http://127.0.0.1:{balancer}/mcp",
            )
            yield live
    finally:
        stop_process(second)


def create_superuser(live: LiveGateway, password: str) -> None:
    """An admin user `admin` with this password, for the admin pages."""
    live.orm(lambda: User.objects.create_superuser("admin", "admin@example.com", password))


def stop_gateway(live: LiveGateway) -> None:
    if live.process is not None:
        stop_process(live.process)


@contextmanager
def running_gateway(tmp: Path, upstreams: list[dict], clients: list[dict], **env: str):
    """`start_gateway` for the length of a `with` block (a fixture's yield)."""
    live = start_gateway(tmp, upstreams, clients, **env)
    try:
        yield live
    finally:
        stop_gateway(live)


def stdio_upstream(name: str, script: str, *args: str, timeout: float = 60.0) -> dict:
    return {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SERVERS / script), *args],
        "timeout_seconds": timeout,
    }


ECHO = str(ECHO_SERVER)
