"""Upstream connections that carry a bearer token, against the OAuth-protected fixture server."""

from __future__ import annotations

import mcp_types as types
import pytest

from gateway.upstreams import (
    BearerUnavailable,
    GrantRef,
    UpstreamConnection,
    UpstreamError,
    UpstreamHooks,
    UpstreamPool,
    UpstreamSpec,
    split_caller_route,
)
from tests.fixtures.http_server import run_oauth_server
from tests.fixtures.oauth_tokens import obtain_tokens

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def oauth_server():
    with run_oauth_server() as server:
        yield server


class Tokens:
    """A bearer source over a list of tokens: hands out the current one, the next on 401."""

    def __init__(self, *tokens: str, missing: str | None = None) -> None:
        self.tokens = list(tokens)
        self.missing = missing
        self.refused: list[str] = []
        self.asked = 0

    async def token(self) -> str:
        self.asked += 1
        if self.missing is not None:
            raise BearerUnavailable(self.missing)
        return self.tokens[0]

    async def rejected(self, token: str) -> str:
        self.refused.append(token)
        self.tokens.pop(0)
        if not self.tokens:
            raise BearerUnavailable("the grant needs re-authorization; connect it again")
        return self.tokens[0]


def spec(server, member: int | None = None) -> UpstreamSpec:
    return UpstreamSpec(
        name="hosted",
        transport="http",
        url=server.url,
        timeout=10,
        grant=GrantRef(upstream_id=1, mode="member", member=member),
    )


async def whoami(connection: UpstreamConnection) -> str:
    result = await connection.call_tool("whoami", {})
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture
async def connect(oauth_server):
    opened: list[UpstreamConnection] = []

    def open_with(source: Tokens) -> UpstreamConnection:
        connection = UpstreamConnection(spec(oauth_server), bearer=source)
        opened.append(connection)
        return connection

    yield open_with
    for connection in opened:
        await connection.aclose()


async def test_every_request_carries_the_sources_current_token(oauth_server, connect):
    source = Tokens(obtain_tokens(oauth_server.url, "alice").access_token)
    connection = connect(source)
    assert await whoami(connection) == "alice"
    asked = source.asked
    assert await whoami(connection) == "alice"
    assert source.asked > asked  # asked again for the next request, not remembered
    assert source.refused == []


async def test_a_refused_token_is_replaced_once_and_the_call_goes_through(oauth_server, connect):
    fresh = obtain_tokens(oauth_server.url, "bob").access_token
    source = Tokens("expired-or-revoked", fresh)
    assert await whoami(connect(source)) == "bob"
    assert source.refused == ["expired-or-revoked"]


async def test_a_refused_token_mid_session_costs_no_failed_call(oauth_server, connect):
    fresh = obtain_tokens(oauth_server.url, "bob").access_token
    source = Tokens(fresh)
    connection = connect(source)
    assert await whoami(connection) == "bob"
    source.tokens = ["expired-meanwhile", fresh]
    assert await whoami(connection) == "bob"
    assert source.refused == ["expired-meanwhile"]


async def test_without_a_token_the_start_fails_with_the_sources_message(connect):
    source = Tokens(missing="upstream 'hosted' needs authorization; connect it at http://x/c")
    with pytest.raises(UpstreamError) as caught:
        await connect(source).start()
    assert caught.value.kind == "unavailable"
    assert "connect it at http://x/c" in caught.value.message


async def test_a_token_lost_mid_session_fails_that_call_with_the_sources_message(
    oauth_server, connect
):
    source = Tokens(obtain_tokens(oauth_server.url, "alice").access_token)
    connection = connect(source)
    assert await whoami(connection) == "alice"
    source.tokens = ["refused"]  # refused, and no fresh one to be had
    with pytest.raises(UpstreamError) as caught:
        await whoami(connection)
    assert caught.value.kind == "unavailable"
    assert "needs re-authorization" in caught.value.message
    assert connection.state == "running"  # the session itself is fine


async def test_the_pool_keeps_one_connection_per_member_each_with_its_own_token(oauth_server):
    tokens = {7: obtain_tokens(oauth_server.url, "alice")}
    tokens[8] = obtain_tokens(oauth_server.url, "bob")
    pool = UpstreamPool(bearer_for=lambda s: Tokens(tokens[s.grant.member].access_token))
    try:
        alice = await pool.get(spec(oauth_server, member=7))
        bob = await pool.get(spec(oauth_server, member=8))
        assert alice is not bob
        assert await pool.get(spec(oauth_server, member=7)) is alice
        assert (await whoami(alice), await whoami(bob)) == ("alice", "bob")
        assert pool.names() == ["hosted"] and len(pool) == 2
        await pool.retain(set())
        assert len(pool) == 0
    finally:
        await pool.aclose()


async def test_what_a_members_upstream_asks_back_is_routed_to_that_members_calls():
    asked: list[str] = []

    async def elicitation(route: str, params: types.ElicitRequestParams):
        asked.append(route)
        return types.ElicitResult(action="decline")

    hooks = UpstreamHooks(elicitation=elicitation).for_member(7)
    assert hooks.elicitation is not None
    question = types.ElicitRequestFormParams(message="?", requested_schema={})
    await hooks.elicitation("hosted", question)
    assert asked == ["hosted#member-7"]
    assert spec_route(7) == "hosted#member-7" and spec_route(None) == "hosted"
    assert split_caller_route(spec_route(7)) == ("hosted", 7)
    assert split_caller_route(spec_route(None)) == ("hosted", None)


def spec_route(member: int | None) -> str:
    mode = "member" if member is not None else "shared"
    grant = GrantRef(upstream_id=1, mode=mode, member=member)
    hosted = UpstreamSpec(name="hosted", transport="http", url="http://h/mcp", grant=grant)
    return hosted.caller_route
