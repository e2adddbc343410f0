"""Quirks of real servers met at the connection: a ping answered with an error, long lists."""

import anyio
import pytest

from gateway.catalog.listings import read_listing
from gateway.sessions.reverse_requests import CallerRegistry
from gateway.upstreams import UpstreamConnection
from gateway.upstreams.connection import PAGE_LIMIT
from tests.fixtures.upstreams import fixture_spec

pytestmark = pytest.mark.anyio


async def test_a_ping_answered_with_an_error_means_alive():
    spec = fixture_spec("raw_quirks_server.py", name="quirky")
    connection = UpstreamConnection(spec, hooks=CallerRegistry().hooks())
    try:
        with anyio.fail_after(20):
            await connection.ping()
        assert connection.state == "running"
    finally:
        await connection.aclose()


async def test_a_paginator_that_never_ends_stops_at_the_page_limit(caplog):
    pages = PAGE_LIMIT + 5
    spec = fixture_spec("catalog_replay.py", "--tools", str(pages), "--page-size", "1")
    connection = UpstreamConnection(spec)
    try:
        with anyio.fail_after(60):
            listing = await read_listing(connection)
    finally:
        await connection.aclose()
    assert len(listing.tools) == PAGE_LIMIT
    assert f"upstream 'echo': stopped reading tools after {PAGE_LIMIT} pages" in caplog.text
