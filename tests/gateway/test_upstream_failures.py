"""Upstreams that cannot start or misbehave fail with a clear UpstreamError, never a hang."""

from __future__ import annotations

import anyio
import pytest

from gateway.upstreams import Backoff, UpstreamConnection, UpstreamError, UpstreamSpec
from gateway.upstreams.errors import REDACTED, redact
from tests.fixtures.processes import child_pids
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio

SECRET = "s3cr3t-token-value"


async def test_an_upstream_that_exits_at_once_is_unavailable():
    connection = UpstreamConnection(fixture_spec("fails_to_start.py", name="broken"))
    with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
        await connection.list_tools()
    assert caught.value.upstream == "broken"
    assert caught.value.kind == "unavailable"
    assert "closed the connection during the handshake" in caught.value.message
    await connection.aclose()


async def test_a_missing_command_is_unavailable():
    spec = UpstreamSpec(name="ghost", transport="stdio", command="/nonexistent/mcp-server")
    connection = UpstreamConnection(spec)
    with pytest.raises(UpstreamError) as caught:
        await connection.start()
    assert caught.value.kind == "unavailable"
    assert "No such file or directory" in caught.value.message


async def test_garbage_on_stdout_is_a_protocol_error_not_a_hang():
    before = child_pids()
    connection = UpstreamConnection(
        fixture_spec("garbage_stdout.py", "--forever", name="noisy", timeout=30)
    )
    with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
        await connection.list_tools()
    assert caught.value.kind == "protocol"
    await connection.aclose()
    assert child_pids() == before


async def test_a_handshake_that_never_completes_times_out():
    connection = UpstreamConnection(
        fixture_spec("garbage_stdout.py", name="quiet", timeout=0.5, start_timeout=0.5)
    )
    # Even without the fast path for garbage, the start is bounded by the spec's timeout.
    with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
        await connection.start()
    assert caught.value.kind in ("timeout", "protocol")
    await connection.aclose()


async def test_restarts_back_off_after_repeated_failures():
    backoff = Backoff(initial=30.0)
    connection = UpstreamConnection(
        fixture_spec("fails_to_start.py", name="flaky"), backoff=backoff
    )
    for _ in range(2):  # the first retry is immediate
        with pytest.raises(UpstreamError):
            await connection.start()
    with pytest.raises(UpstreamError) as caught:
        await connection.start()
    assert caught.value.kind == "unavailable"
    assert "restarting in" in caught.value.message
    assert backoff.failures == 2


async def test_error_messages_never_contain_env_or_header_values():
    connection = UpstreamConnection(fixture_spec(env={"API_TOKEN": SECRET}))
    try:
        result = await connection.call_tool("fail", {"message": f"token is {SECRET}"})
        assert result.is_error  # tool results are the upstream's business, passed through
        with pytest.raises(UpstreamError) as caught:
            await connection.read_resource(f"fixture://missing/{SECRET}")
        assert caught.value.kind == "rejected"
        assert REDACTED in caught.value.message  # the upstream echoed the URI back
        assert SECRET not in str(caught.value)
        assert SECRET not in repr(caught.value.to_error_data())
    finally:
        await connection.aclose()


def test_redact_replaces_every_secret_value():
    assert redact(f"a {SECRET} b {SECRET}", (SECRET,)) == f"a {REDACTED} b {REDACTED}"


async def test_an_unreachable_http_upstream_is_unavailable():
    spec = UpstreamSpec(
        name="offline",
        transport="http",
        url="http://127.0.0.1:9/mcp?key=abc",
        headers={"Authorization": f"Bearer {SECRET}"},
        timeout=5,
    )
    connection = UpstreamConnection(spec)
    with anyio.fail_after(10), pytest.raises(UpstreamError) as caught:
        await connection.start()
    assert caught.value.kind == "unavailable"
    assert SECRET not in str(caught.value) and "key=abc" not in str(caught.value)
    await connection.aclose()
