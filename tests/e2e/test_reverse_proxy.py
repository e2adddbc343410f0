"""Two workers behind Debian's HAProxy or nginx, configured as docs/deploy.md says: a
session's requests reach its own worker, and a worker killed mid-run costs its clients one
404 and no one else anything."""

import asyncio
import contextlib
import dataclasses
import os
import shutil
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.live import start_daphne, start_gateway, stdio_upstream
from tests.e2e.reverse_proxies import haproxy, nginx
from tests.e2e.scrape import METRICS_TOKEN, samples
from tests.fixtures.http_server import free_port, stop_process

pytestmark = pytest.mark.anyio
REDIS = os.environ.get("TEST_REDIS_URL")
CLIENTS = [f"c{number}" for number in range(8)]
ROUTES = ("w8001", "w8002")


@pytest.fixture(scope="module", params=[haproxy, nginx], ids=["haproxy", "nginx"])
def proxied(request, tmp_path_factory):
    """Two workers (routes w8001, w8002) sharing Redis, behind the proxy (the last tests of
    this module stop one, start it again, and kill it)."""
    proxy = request.param
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    binary = proxy.__name__
    if not shutil.which(binary) and not os.path.exists(f"/usr/sbin/{binary}"):
        pytest.fail(f"{binary} is not installed (.ci/run installs Debian's package)")
    tmp_path = tmp_path_factory.mktemp("proxied")
    gateway = start_gateway(
        tmp_path,
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": name} for name in CLIENTS],
        REDIS_URL=REDIS,
        LOCALROUTER_METRICS_TOKEN=METRICS_TOKEN,
        LOCALROUTER_WORKER_ROUTE=ROUTES[0],
    )

    def start_worker(route: str, port: int, log_name: str):
        route_env = {**gateway.env, "LOCALROUTER_WORKER_ROUTE": route}
        worker = dataclasses.replace(gateway, env=route_env)
        return start_daphne(worker, port, tmp_path / log_name)

    second_port = free_port()
    second = start_worker(ROUTES[1], second_port, "daphne-2.log")
    first_port = int(gateway.url.rsplit(":", 1)[1].split("/")[0])
    ports = dict(zip(ROUTES, (first_port, second_port), strict=True))
    processes = dict(zip(ROUTES, (gateway.process, second), strict=True))

    def restart(route: str) -> None:
        """Start the worker of `route` again, on its port (it was stopped)."""
        worker = dataclasses.replace(
            gateway, env={**gateway.env, "LOCALROUTER_WORKER_ROUTE": route}
        )
        log = tmp_path / f"daphne-{route}-again.log"
        processes[route] = start_daphne(worker, ports[route], log)

    urls = {route: f"http://127.0.0.1:{port}/mcp" for route, port in ports.items()}
    try:
        with proxy(ports, tmp_path) as url:
            gateway.extra.update(proxy=url, processes=processes, restart=restart, urls=urls)
            yield gateway
    finally:
        for process in processes.values():
            stop_process(process)


@asynccontextmanager
async def proxied_client(gateway, name: str, mode: str = "legacy"):
    """An SDK client through the proxy; `.session_ids` lists the ids it was given."""
    seen: list[str] = []

    async def note(response: httpx2.Response) -> None:
        if session_id := response.headers.get("mcp-session-id"):
            seen.append(session_id)

    headers = {"Authorization": f"Bearer {gateway.tokens[name]}"}
    async with httpx2.AsyncClient(
        headers=headers, timeout=60, event_hooks={"response": [note]}
    ) as http:
        transport = streamable_http_client(gateway.extra["proxy"], http_client=http)
        async with Client(transport, mode=mode) as client:
            client.session_ids = seen
            yield client


def forwarded(gateway, **outcome: str) -> float:
    """Requests forwarded between the workers so far (scraped from the one that stays up)."""
    scraped = samples(gateway.extra["urls"][ROUTES[1]])
    return scraped.total("localrouter_forwarded_requests_total", **outcome)


async def echo_round(client, tag: str, calls: int) -> None:
    for number in range(calls):
        text = f"{tag}-{number}"
        reply = await client.call_tool("echo__echo", {"text": text})
        assert not reply.is_error, reply.content[0].text
        assert reply.content[0].text == text  # never another client's answer


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_requests_reach_their_own_worker_so_almost_none_is_forwarded(proxied, mode):
    calls = 15
    before = forwarded(proxied)
    async with asyncio.TaskGroup() as group:
        for name in CLIENTS:
            group.create_task(_session(proxied, name, mode, calls))
    assert forwarded(proxied) - before <= 0.01 * len(CLIENTS) * calls


async def _session(gateway, name: str, mode: str, calls: int) -> None:
    async with proxied_client(gateway, name, mode) as client:
        await echo_round(client, name, calls)
        if mode == "legacy":
            assert client.session_ids[0].split(".")[0] in ROUTES


@asynccontextmanager
async def closed_quietly(opened):
    """`opened`, whose closing may fail without failing the test: a client whose session is
    gone fails its DELETE. What fails inside the block still does."""
    client = await opened.__aenter__()
    try:
        yield client
    except BaseException as error:
        with contextlib.suppress(Exception):
            await opened.__aexit__(type(error), error, error.__traceback__)
        raise
    with contextlib.suppress(Exception):
        await opened.__aexit__(None, None, None)


async def proxy_routes_to(gateway, route: str) -> None:
    """Wait until the proxy sends new sessions to the worker of `route` again (a worker
    started again: HAProxy's health check, nginx's fail_timeout)."""
    with anyio.fail_after(60):
        while True:
            for name in CLIENTS:
                async with proxied_client(gateway, name) as client:
                    if client.session_ids[0].startswith(route):
                        return
            await anyio.sleep(0.5)


async def open_clients(gateway, stack: contextlib.AsyncExitStack) -> dict:
    """Every client with a session through the proxy, two calls made; sessions on both."""
    clients = {}
    for name in CLIENTS:
        clients[name] = await stack.enter_async_context(
            closed_quietly(proxied_client(gateway, name))
        )
        await echo_round(clients[name], name, 2)
    routes = {name: client.session_ids[0].split(".")[0] for name, client in clients.items()}
    assert set(routes.values()) == set(ROUTES), f"the token hash put all on one: {routes}"
    return clients


async def survive(gateway, clients: dict, victim: str) -> list[str]:
    """After `victim` stopped: the other clients go on, the victim's get 404; those."""
    affected = [name for name, c in clients.items() if c.session_ids[0].startswith(victim)]
    for name in CLIENTS:
        if name not in affected:
            await echo_round(clients[name], f"{name}-after", 3)
    for name in affected:
        with pytest.raises(Exception) as lost:  # noqa: PT011 - the SDK's error for a 404
            await clients[name].call_tool("echo__echo", {"text": "lost?"})
        assert "not found" in str(lost.value).lower(), repr(lost.value)
    return affected


async def reopen(gateway, affected: list[str], victim: str) -> None:
    """Each affected client opens a new session, which lands on the live worker."""
    for name in affected:
        async with proxied_client(gateway, name) as client:
            await echo_round(client, f"{name}-again", 3)
            assert not client.session_ids[0].startswith(victim)


async def test_a_worker_stopped_gracefully_hands_its_sessions_back_at_once(proxied):
    victim = ROUTES[0]
    waited_on_the_gone = forwarded(proxied, outcome="gone")
    async with contextlib.AsyncExitStack() as stack:
        clients = await open_clients(proxied, stack)
        proxied.extra["processes"][victim].terminate()  # SIGTERM: a graceful stop
        assert proxied.extra["processes"][victim].wait(timeout=60) == 0
        affected = await survive(proxied, clients, victim)
    await reopen(proxied, affected, victim)
    # Its sessions were handed back: no request was relayed to it to wait for its heartbeat
    # to expire, as for a worker that is killed.
    assert forwarded(proxied, outcome="gone") == waited_on_the_gone
    proxied.extra["restart"](victim)
    await proxy_routes_to(proxied, victim)


async def test_a_killed_worker_costs_its_clients_one_404_and_no_one_else_anything(proxied):
    victim = ROUTES[0]
    waited_on_the_gone = forwarded(proxied, outcome="gone")
    async with contextlib.AsyncExitStack() as stack:
        clients = await open_clients(proxied, stack)
        proxied.extra["processes"][victim].kill()
        proxied.extra["processes"][victim].wait()
        affected = await survive(proxied, clients, victim)
    await reopen(proxied, affected, victim)
    # Killed, it could not hand anything back: its sessions' requests were relayed to it
    # until its heartbeat expired, then answered 404.
    assert forwarded(proxied, outcome="gone") > waited_on_the_gone
