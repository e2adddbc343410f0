"""Placeholders in a stored upstream are filled in from the environment when it starts."""

import sys

import pytest

from gateway.models import Upstream
from gateway.upstream_config.directory import spec_for
from gateway.upstreams import UpstreamConnection, UpstreamError
from tests.fixtures.upstreams import SERVERS_DIR

pytestmark = [pytest.mark.anyio, pytest.mark.django_db]


def echo_upstream(**env: str) -> Upstream:
    return Upstream(
        name="echo",
        command=sys.executable,
        args=[str(SERVERS_DIR / "echo_server.py")],
        env=env,
        timeout_seconds=10,
    )


async def read_env(upstream: Upstream, environ: dict[str, str], *names: str) -> list[str]:
    connection = UpstreamConnection(spec_for(upstream, environ))
    try:
        results = [await connection.call_tool("env", {"name": name}) for name in names]
    finally:
        await connection.aclose()
    return [result.content[0].text for result in results]


async def test_the_upstream_process_sees_values_and_defaults_not_the_placeholders():
    upstream = echo_upstream(
        TOKEN="Bearer ${TEAM_TOKEN}", REGION="${REGION:-eu-west-1}", KEY="${SECRET_KEY:-none}"
    )
    environ = {"TEAM_TOKEN": "t-123456", "SECRET_KEY": "the-gateways-own"}
    values = await read_env(upstream, environ, "TOKEN", "REGION", "KEY")
    assert values == ["Bearer t-123456", "eu-west-1", "none"]


async def test_an_unset_variable_is_a_clear_start_error_naming_it():
    connection = UpstreamConnection(spec_for(echo_upstream(TOKEN="${TEAM_TOKEN}"), {}))
    try:
        with pytest.raises(UpstreamError, match="set TEAM_TOKEN in the gateway's environment"):
            await connection.call_tool("env", {"name": "TOKEN"})
    finally:
        await connection.aclose()


def test_the_gateways_own_settings_never_reach_an_upstream():
    environ = {"DATABASE_URL": "postgres://u:pw@db/x", "LOCALROUTER_ADMIN_PASSWORD": "pw"}
    spec = spec_for(
        echo_upstream(A="${DATABASE_URL}", B="${LOCALROUTER_ADMIN_PASSWORD:-}"), environ
    )
    assert spec.env == {"A": "${DATABASE_URL}", "B": ""}
    assert spec.unset == ("DATABASE_URL",)
