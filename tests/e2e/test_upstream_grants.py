"""Calls to an OAuth-protected upstream carry the caller's own grant, through two workers.

The upstream is the OAuth fixture server (its tool `whoami` answers the subject of the token
a call carried); the members' grants come from its authorization code flow, run without a
browser (`tests/fixtures/oauth_tokens.py`). Two daphne workers share Redis behind a
round-robin balancer, as in `test_several_workers.py`.
"""

from __future__ import annotations

import os
import secrets
from contextlib import asynccontextmanager

import anyio
import httpx2
import mcp_types as types
import pytest
from django.conf import settings
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gateway.models import Upstream
from localrouter.encryption import derived_key
from tests.e2e.live import add_upstreams_and_clients, behind_a_balancer, running_gateway
from tests.fixtures.http_server import run_oauth_server
from tests.fixtures.oauth_tokens import obtain_tokens, store_grant

pytestmark = pytest.mark.anyio
REDIS = os.environ.get("TEST_REDIS_URL")
ERAS = ["legacy", "2026-07-28"]
PUBLIC_URL = "https://router.example"
CLIENTS = {"ann-laptop": "ann", "ben-laptop": "ben", "cho-laptop": "cho", "dee-laptop": "dee"}
"""Each client and the member who owns it; `team-bot` belongs to nobody."""


@pytest.fixture(scope="module")
def hosted():
    with run_oauth_server() as server:
        yield server


@pytest.fixture(scope="module")
def brief(hosted):
    """A second protected server whose tokens live two seconds."""
    with run_oauth_server("--token-seconds", "2") as server:
        yield server


def clients_with_ids_of_their_own() -> dict[str, str]:
    """The clients, numbered from a random id: a 2026-07-28 client's worker is claimed in
    the shared test Redis under its id for half an hour, and another gateway's stopped
    worker may still hold the claim of a client numbered from 1 (ORM code)."""
    from django.db import connection

    from clients.models import Client as ClientRow

    table = ClientRow._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [table])
        cursor.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)",
            [table, secrets.randbelow(10**9) + 10**6],
        )
    return add_upstreams_and_clients([], [{"name": name} for name in [*CLIENTS, "team-bot"]])


def own_clients() -> None:
    """Give each client its owner (ORM code on the gateway's database)."""
    from django.contrib.auth.models import User

    from clients.models import Client as ClientRow

    for client, member in CLIENTS.items():
        owner = User.objects.get_or_create(username=member)[0]
        ClientRow.objects.filter(name=client).update(owner=owner)


@pytest.fixture(scope="module")
def workers(tmp_path_factory, hosted, brief):
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    with running_gateway(
        tmp_path_factory.mktemp("grants"),
        [
            {"name": "hosted", "transport": "http", "url": hosted.url},
            {"name": "brief", "transport": "http", "url": brief.url},
            {"name": "unlisted", "transport": "http", "url": hosted.url},
        ],
        [],  # added below, with ids of their own
        REDIS_URL=REDIS,
        LOCALROUTER_PUBLIC_URL=PUBLIC_URL,
        # Tests change grants behind the workers' backs (ORM): no worker may keep a token.
        LOCALROUTER_GRANT_TOKEN_CACHE_SECONDS="0",
        # The grants are sealed in this process (store_grant): the gateway opens them.
        LOCALROUTER_ENCRYPTION_KEYS=",".join(settings.ENCRYPTION_KEYS)
        or derived_key(settings.SECRET_KEY),
    ) as gateway:
        gateway.tokens = gateway.orm(clients_with_ids_of_their_own)
        gateway.orm(own_clients)
        gateway.orm(lambda: per_member("unlisted"))  # nobody connects it
        for member in ("ann", "ben"):
            tokens = obtain_tokens(hosted.url, member)
            gateway.orm(lambda tokens=tokens, member=member: store_grant("hosted", member, tokens))
        gateway.orm(lambda: store_grant("brief", "ann", obtain_tokens(brief.url, "ann")))
        with behind_a_balancer(gateway):
            yield gateway


@asynccontextmanager
async def client_of(workers, name: str, mode: str, where: str = "balanced", **options):
    async with workers.http(workers.tokens[name]) as http:
        transport = streamable_http_client(workers.extra[where], http_client=http)
        async with Client(transport, mode=mode, **options) as client:
            yield client


async def whoami(client: Client, upstream: str = "hosted") -> types.CallToolResult:
    return await client.call_tool(f"{upstream}__whoami", {})


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def stats(server) -> dict[str, int]:
    return httpx2.get(server.url.replace("/mcp", "/test/stats")).json()


@pytest.mark.parametrize("mode", ERAS)
async def test_each_members_calls_carry_only_their_own_token(workers, mode):
    async def calls_of(name: str, seen: list[str]) -> None:
        for where in ("balanced", "first", "second"):
            async with client_of(workers, name, mode, where) as client:
                for _ in range(3):
                    result = await whoami(client)
                    assert not result.is_error, text(result)
                    seen.append(text(result))

    seen: dict[str, list[str]] = {"ann-laptop": [], "ben-laptop": []}
    with anyio.fail_after(90):
        async with anyio.create_task_group() as tg:
            for name, answers in seen.items():
                tg.start_soon(calls_of, name, answers)
    assert seen == {"ann-laptop": ["ann"] * 9, "ben-laptop": ["ben"] * 9}


async def list_through_ann(workers) -> None:
    """Let the first worker know the upstream's tools (read through Ann's connection): a
    client whose member has not connected sees what is known, and is asked on calling."""
    async with client_of(workers, "ann-laptop", "2026-07-28", "first") as ann:
        assert text(await whoami(ann)) == "ann"


async def test_with_nothing_known_an_unconnected_member_sees_where_to_connect(workers):
    async with client_of(workers, "dee-laptop", "legacy") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        instructions = client.instructions or ""
    assert not any(name.startswith("unlisted__") for name in names)
    assert "unlisted" in instructions
    assert "has not connected it yet" in instructions
    assert f"connect it at {PUBLIC_URL}/admin/gateway/grant/connect/" in instructions


@pytest.mark.parametrize("mode", ERAS)
async def test_a_team_client_is_told_it_cannot_use_a_per_member_upstream(workers, mode):
    await list_through_ann(workers)
    async with client_of(workers, "team-bot", mode, "first") as client:
        assert "hosted__whoami" in {tool.name for tool in (await client.list_tools()).tools}
        result = await whoami(client)
    assert result.is_error
    assert "'hosted'" in text(result)
    assert "this client belongs to no member" in text(result)
    assert f"connect it at {PUBLIC_URL}/" in text(result)


async def test_a_member_who_has_not_connected_gets_the_link_in_a_tool_error(workers):
    await list_through_ann(workers)
    async with client_of(workers, "dee-laptop", "legacy", "first") as client:
        result = await whoami(client)
    assert result.is_error
    assert "Upstream 'hosted' is not connected" in text(result)
    assert f"connect it at {PUBLIC_URL}/" in text(result)


@pytest.mark.parametrize(("mode", "member"), [("2026-07-28", "cho"), ("legacy", "dee")])
async def test_a_client_that_takes_url_elicitation_is_asked_to_connect_and_the_call_goes_on(
    workers, hosted, mode, member
):
    asked: list[types.ElicitRequestURLParams] = []

    async def connect_in_browser(context, params):
        asked.append(params)
        # What the person does at the link: the authorization round trip, a grant stored.
        tokens = await anyio.to_thread.run_sync(obtain_tokens, hosted.url, member)
        await anyio.to_thread.run_sync(workers.orm, lambda: store_grant("hosted", member, tokens))
        return types.ElicitResult(action="accept")

    options = {"elicitation_callback": connect_in_browser}
    await list_through_ann(workers)
    try:
        async with client_of(workers, f"{member}-laptop", mode, "first", **options) as client:
            result = await whoami(client)
            assert not result.is_error, text(result)
            assert text(result) == member
            assert text(await whoami(client)) == member  # asked once
    finally:
        workers.orm(lambda: forget_grant("hosted", member))
    assert len(asked) == 1
    assert asked[0].mode == "url"
    assert asked[0].url.startswith(f"{PUBLIC_URL}/")
    assert "'hosted'" in asked[0].message


async def test_a_declined_connection_request_ends_in_the_tool_error(workers):
    async def decline(context, params):
        return types.ElicitResult(action="decline")

    options = {"elicitation_callback": decline}
    await list_through_ann(workers)
    async with client_of(workers, "cho-laptop", "2026-07-28", "first", **options) as client:
        result = await whoami(client)
    assert result.is_error
    assert f"connect it at {PUBLIC_URL}/" in text(result)


@pytest.mark.parametrize("mode", ERAS)
async def test_tokens_that_expire_within_seconds_are_refreshed_with_no_failed_call(
    workers, brief, mode
):
    before = stats(brief).get("refresh_token", 0)
    calls = 0
    async with client_of(workers, "ann-laptop", mode) as client:
        with anyio.fail_after(30):
            # Call at a client's pace until the token was refreshed twice during the session.
            while stats(brief).get("refresh_token", 0) < before + 2:
                result = await whoami(client, "brief")
                assert not result.is_error, text(result)
                assert text(result) == "ann"
                calls += 1
                await anyio.sleep(0.1)
        assert text(await whoami(client, "brief")) == "ann"
    assert calls > 1


async def test_a_token_the_upstream_refuses_mid_session_is_refreshed_and_the_call_retried(
    workers, hosted
):
    async with client_of(workers, "ben-laptop", "2026-07-28", "first") as client:
        assert text(await whoami(client)) == "ben"
        refreshed = stats(hosted).get("refresh_token", 0)
        workers.orm(lambda: spoil_access_token("hosted", "ben"))
        result = await whoami(client)
        assert not result.is_error, text(result)
        assert text(result) == "ben"
    assert stats(hosted).get("refresh_token", 0) == refreshed + 1


def per_member(upstream: str) -> None:
    from gateway.upstream_auth.models import UpstreamAuth

    UpstreamAuth.objects.create(upstream=Upstream.objects.get(name=upstream), mode="member")


def forget_grant(upstream: str, member: str) -> None:
    from gateway.upstream_auth.models import Grant

    Grant.objects.filter(upstream__name=upstream, member__username=member).delete()


def spoil_access_token(upstream: str, member: str) -> None:
    """The stored access token stops working before its time (revoked, or the server
    restarted): the next request is refused with 401."""
    from gateway.upstream_auth.models import Grant

    grant = Grant.objects.get(upstream__name=upstream, member__username=member)
    grant.seal("access_token", "no-longer-valid")
    grant.save()
