"""Text that is not JSON-RPC on an upstream's stdout: a banner is skipped, garbage is one line."""

import logging

import anyio
import pytest

from gateway.catalog.listings import read_listing
from gateway.sessions.reverse_requests import CallerRegistry
from gateway.upstreams import UpstreamConnection
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio


async def test_a_banner_before_json_rpc_is_skipped_and_logged_once(caplog):
    caplog.set_level(logging.INFO)
    spec = fixture_spec("raw_quirks_server.py", name="chatty")
    connection = UpstreamConnection(spec, hooks=CallerRegistry().hooks())
    try:
        with anyio.fail_after(20):
            listing = await read_listing(connection)
    finally:
        await connection.aclose()
    assert listing.error is None and listing.tools
    banner = [r for r in caplog.records if "not JSON-RPC" in r.getMessage()]
    assert [r.getMessage() for r in banner] == [
        "upstream 'chatty': skipped 2 line(s) of stdout before the handshake that were not "
        "JSON-RPC, first: 'Quirky MCP server 1.0 starting...'"
    ]
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize("script", ["garbage_stdout.py", "fails_to_start.py"])
async def test_a_garbage_spewing_or_crashing_upstream_logs_one_line_per_restart(caplog, script):
    caplog.set_level(logging.INFO)
    connection = UpstreamConnection(fixture_spec(script, "--forever", name="spew", timeout=30))
    restarts = 3
    try:
        for _ in range(restarts):
            with anyio.fail_after(20):
                listing = await read_listing(connection)
            assert listing.error is not None
            connection.backoff.record_success()  # restart at once instead of backing off
    finally:
        await connection.aclose()
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == restarts, [r.getMessage() for r in records]
    assert all(r.getMessage().startswith("upstream 'spew' is unavailable") for r in records)
    assert not any(r.exc_info for r in caplog.records)
