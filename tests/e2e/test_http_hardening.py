"""Hardening through daphne behind a (simulated) TLS proxy on loopback: invalid bearer tokens
throttled per client address, HSTS on https requests only, the admin's
Content-Security-Policy with a nonce per response."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator

import httpx2
import pytest

from tests.e2e.live import INITIALIZE, LiveGateway, start_daphne, start_gateway, stop_gateway
from tests.fixtures.http_server import free_port, stop_process

pytestmark = pytest.mark.anyio
ACCEPT = "application/json, text/event-stream"
LIMIT = 3
ONE_YEAR = 365 * 24 * 3600
REDIS = os.environ.get("TEST_REDIS_URL")
PROXIED = {
    "LOCALROUTER_BEHIND_TLS_PROXY": "true",
    "LOCALROUTER_TRUSTED_PROXIES": "127.0.0.1",
    "LOCALROUTER_TOKEN_FAILURE_LIMIT": str(LIMIT),
    "LOCALROUTER_TOKEN_LOCKOUT_SECONDS": "600",
}


@pytest.fixture(scope="module")
def proxied(tmp_path_factory) -> Iterator[LiveGateway]:
    """A gateway whose proxy is this test (on 127.0.0.1), naming client addresses in
    X-Forwarded-For as a proxy appends them."""
    live = start_gateway(tmp_path_factory.mktemp("hardening"), [], [{"name": "alice"}], **PROXIED)
    try:
        yield live
    finally:
        stop_gateway(live)


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory) -> Iterator[LiveGateway]:
    """Two workers sharing Redis (their cache too), behind the same simulated proxy."""
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    live = start_gateway(
        tmp_path_factory.mktemp("hardening-workers"),
        [],
        [{"name": "alice"}],
        REDIS_URL=REDIS,
        **PROXIED,
    )
    port = free_port()
    second = start_daphne(live, port, live.data_dir / "daphne-2.log")
    live.extra["second"] = f"http://127.0.0.1:{port}/mcp"
    try:
        yield live
    finally:
        stop_process(second)
        stop_gateway(live)


async def initialize(
    live: LiveGateway, token: str, forwarded_for: str, url: str | None = None
) -> httpx2.Response:
    headers = {"Accept": ACCEPT, "X-Forwarded-For": forwarded_for}
    async with live.http(token) as http:
        return await http.post(url or live.url, json=INITIALIZE, headers=headers)


async def test_invalid_tokens_from_one_address_get_it_429_before_any_token_is_checked(proxied):
    attacker = "203.0.113.7"
    for _ in range(LIMIT):
        answer = await initialize(proxied, "lr_guess", attacker)
        assert answer.status_code == 401
    refused = await initialize(proxied, "lr_guess", attacker)
    assert refused.status_code == 429
    assert 590 <= int(refused.headers["retry-after"]) <= 600
    error = refused.json()["error"]
    assert error["message"].startswith("too many invalid tokens from this address; retry in ")
    # Before the token is looked at: a good one from there is refused too.
    good = proxied.tokens["alice"]
    assert (await initialize(proxied, good, attacker)).status_code == 429
    # What the client writes to the left of what the proxy appended changes nothing.
    assert (await initialize(proxied, good, f"198.51.100.9, {attacker}")).status_code == 429
    # Other addresses are served, and their bad tokens are counted on their own.
    served = await initialize(proxied, good, "198.51.100.9")
    assert served.status_code == 200, served.text
    assert served.json()["result"]["serverInfo"]["name"] == "localrouter"
    assert (await initialize(proxied, "lr_guess", "198.51.100.9")).status_code == 401


async def test_hsts_is_sent_on_https_requests_only(proxied):
    login = proxied.url.removesuffix("/mcp") + "/admin/login/"
    async with httpx2.AsyncClient() as http:
        secure = await http.get(login, headers={"X-Forwarded-Proto": "https"})
        plain = await http.get(login)
    assert secure.headers["strict-transport-security"] == f"max-age={ONE_YEAR}"
    assert "strict-transport-security" not in plain.headers


async def test_admin_pages_carry_a_strict_csp_with_the_pages_nonce(proxied):
    login = proxied.url.removesuffix("/mcp") + "/admin/login/"
    async with httpx2.AsyncClient() as http:
        first, second = await http.get(login), await http.get(login)
    policy = first.headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    nonce = re.search(r"'nonce-([^']+)'", directives["script-src"]).group(1)
    assert directives["script-src"] == f"'self' 'nonce-{nonce}'"
    assert directives["style-src"] == f"'self' 'nonce-{nonce}'"
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert f'nonce="{nonce}"' in first.text
    assert nonce not in second.headers["content-security-policy"]


async def test_workers_sharing_redis_count_an_addresss_invalid_tokens_together(two_workers):
    first, second = two_workers.url, two_workers.extra["second"]
    # Redis outlives the test: an address of its own for every run.
    attacker = f"198.18.{secrets.randbelow(256)}.{secrets.randbelow(256)}"
    good = two_workers.tokens["alice"]
    for url in (first, second, first):
        assert (await initialize(two_workers, "lr_guess", attacker, url)).status_code == 401
    assert (await initialize(two_workers, good, attacker, first)).status_code == 429
    # The second worker learns of the lock at the next invalid token from there.
    assert (await initialize(two_workers, "lr_guess", attacker, second)).status_code == 401
    assert (await initialize(two_workers, good, attacker, second)).status_code == 429
