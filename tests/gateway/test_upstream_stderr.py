"""An upstream's stderr reaches the gateway's log line by line, never with a secret in it."""

import logging

import anyio
import pytest

from gateway.upstreams import UpstreamConnection
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio
SECRET = "sk-live-0123456789abcdef"


async def test_stderr_lines_are_logged_with_secret_values_redacted(caplog):
    caplog.set_level(logging.INFO, logger="gateway.upstreams.stderr")
    connection = UpstreamConnection(fixture_spec(env={"API_KEY": SECRET}, timeout=10))
    try:
        result = await connection.call_tool("complain", {"name": "API_KEY"})
        assert result.content[0].text == "complained"
        with anyio.fail_after(5):
            while not any("starting with API_KEY=" in r.getMessage() for r in caplog.records):
                await anyio.sleep(0.02)
    finally:
        await connection.aclose()
    lines = [r.getMessage() for r in caplog.records if r.name == "gateway.upstreams.stderr"]
    assert "upstream echo: starting with API_KEY=[redacted]" in lines
    assert not any(SECRET in line for line in lines)
