"""A failing upstream says why: refused, DNS, TLS, HTTP status; its stderr is kept, redacted."""

from __future__ import annotations

import anyio
import pytest

from gateway.upstreams import UpstreamConnection, UpstreamError, UpstreamSpec, stderr_tail
from gateway.upstreams.errors import REDACTED, redact_line
from tests.fixtures.http_server import free_port, run_http_server
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def http_server():
    with run_http_server() as server:
        yield server


async def start_error(spec: UpstreamSpec) -> UpstreamError:
    connection = UpstreamConnection(spec)
    try:
        with anyio.fail_after(20), pytest.raises(UpstreamError) as caught:
            await connection.start()
    finally:
        await connection.aclose()
    return caught.value


def http_spec(url: str) -> UpstreamSpec:
    return UpstreamSpec(name="web", transport="http", url=url, timeout=5)


async def test_a_refused_connection_says_so():
    port = free_port()
    error = await start_error(http_spec(f"http://127.0.0.1:{port}/mcp"))
    assert error.message == f"connection refused by http://127.0.0.1:{port}/mcp"


async def test_an_unknown_host_is_a_dns_failure():
    error = await start_error(http_spec("http://no-such-host.invalid/mcp"))
    assert error.message.startswith("DNS lookup failed for http://no-such-host.invalid/mcp")


async def test_tls_to_a_plain_http_server_is_a_tls_failure(http_server):
    error = await start_error(http_spec(f"https://127.0.0.1:{http_server.port}/mcp"))
    assert error.message.startswith(f"TLS handshake with https://127.0.0.1:{http_server.port}/mcp")


async def test_a_wrong_path_names_the_http_status(http_server):
    error = await start_error(http_spec(f"http://127.0.0.1:{http_server.port}/nowhere"))
    assert error.message == f"http://127.0.0.1:{http_server.port}/nowhere answered HTTP 404"


async def test_the_stderr_of_a_crashing_upstream_is_kept():
    error = await start_error(fixture_spec("fails_to_start.py", name="crashy"))
    assert "closed the connection during the handshake" in error.message
    with anyio.fail_after(5):
        while not stderr_tail("crashy"):
            await anyio.sleep(0.02)
    assert stderr_tail("crashy")[-1] == "fixture: refusing to start"


async def test_kept_stderr_lines_have_env_values_redacted():
    connection = UpstreamConnection(
        fixture_spec(name="talker", env={"API_KEY": "s3cret-value"}, timeout=10)
    )
    try:
        await connection.call_tool("complain", {"name": "API_KEY"})
        with anyio.fail_after(5):
            while not stderr_tail("talker"):
                await anyio.sleep(0.02)
    finally:
        await connection.aclose()
    assert stderr_tail("talker") == [f"starting with API_KEY={REDACTED}"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Authorization: Bearer abcdefgh12345", f"Authorization: Bearer {REDACTED}"),
        ("token=ghp_ABCDEFGHIJKLMNOP rest", f"token={REDACTED} rest"),
        ("using key sk-abcdefghijklmnop", f"using key {REDACTED}"),
        ('api_key="supersecret123"', f'api_key="{REDACTED}"'),
        ("password: hunter2hunter2", f"password: {REDACTED}"),
        ("connected with s3cret-value", f"connected with {REDACTED}"),
        ("listening on port 8080, tokens are fine", "listening on port 8080, tokens are fine"),
    ],
)
def test_stderr_lines_lose_env_values_and_anything_like_a_token(line, expected):
    assert redact_line(line, ["s3cret-value"]) == expected
