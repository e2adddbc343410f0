"""Credentials in an upstream's URL never reach the log, a client or an error message."""

import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.live import start_gateway, stop_gateway
from tests.fixtures.http_server import free_port, run_http_server

pytestmark = pytest.mark.anyio
SECRETS = ("PASS_5e1d", "KEY_7c1f", "DOWNPASS_2b9", "DOWNKEY_88a")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    """A gateway whose HTTP upstreams carry credentials: one reachable, one down."""
    with run_http_server() as echo:
        down = free_port()
        upstreams = [
            {
                "name": "secured",
                "transport": "http",
                "url": f"http://user:PASS_5e1d@127.0.0.1:{echo.port}/mcp?api_key=KEY_7c1f&v=1",
            },
            {
                "name": "down",
                "transport": "http",
                "url": f"http://user:DOWNPASS_2b9@127.0.0.1:{down}/mcp?Token=DOWNKEY_88a",
            },
        ]
        live = start_gateway(tmp_path_factory.mktemp("gateway"), upstreams, [{"name": "alice"}])
        try:
            yield live
        finally:
            stop_gateway(live)


async def test_a_sessions_log_and_replies_never_carry_url_credentials(gateway):
    seen: list[str] = []
    for mode in ("legacy", "2026-07-28"):
        async with gateway.client("alice", mode=mode) as client:
            listed = await client.list_tools()
            names = {tool.name for tool in listed.tools}
            assert "secured__echo" in names and not any(n.startswith("down__") for n in names)
            for text in ("one", "two", "three"):
                result = await client.call_tool("secured__echo", {"text": text})
                assert result.content[0].text == text
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("down__echo", {"text": "x"})
            seen += [str(client.instructions), str(listed.meta), str(unknown.value)]
    stop_gateway(gateway)  # flushes everything daphne and the gateway logged
    log = gateway.log()
    replies = "\n".join(seen)
    for secret in SECRETS:
        assert secret not in log, secret
        assert secret not in replies, secret
    assert "http://***@127.0.0.1" in log  # the down upstream's failure was logged, masked
    assert "Unavailable: down" in replies
