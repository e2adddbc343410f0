"""`list_upstreams` and `test_upstream NAME`: the upstreams from the command line."""

import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from gateway.models import Upstream
from tests.fixtures.upstreams import SERVERS_DIR

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def echo(name: str = "echo", **fields) -> Upstream:
    return Upstream.objects.create(
        name=name,
        command=sys.executable,
        args=[str(SERVERS_DIR / "echo_server.py")],
        timeout_seconds=20,
        **fields,
    )


def test_list_upstreams_shows_each_one_without_url_secrets_and_with_unset_variables(monkeypatch):
    monkeypatch.delenv("DOCS_TOKEN", raising=False)
    echo(enabled=False)
    Upstream.objects.create(
        name="docs",
        transport="http",
        url="https://user:pw@docs.example.com/mcp?key=s3cret",
        headers={"Authorization": "Bearer ${DOCS_TOKEN}"},
    )
    lines = run("list_upstreams").splitlines()
    assert lines[0].split() == [
        "name",
        "transport",
        "state",
        "command",
        "or",
        "URL",
        "timeout",
        "unset",
        "variables",
    ]
    docs = lines[1].split()
    assert docs[:3] + docs[4:] == ["docs", "http", "enabled", "60s", "DOCS_TOKEN"]
    assert "docs.example.com/mcp" in docs[3]
    assert lines[2].split() == ["echo", "stdio", "disabled", sys.executable, "20s", "-"]
    assert "s3cret" not in "\n".join(lines) and "pw@" not in "\n".join(lines)


def test_list_upstreams_with_none_says_how_to_add_some():
    assert "import_mcp_servers" in run("list_upstreams")


def test_test_upstream_starts_it_and_lists_its_tools():
    echo(enabled=False)
    output = run("test_upstream", "echo")
    waiting, result = output.splitlines()[:2]
    # Said before the wait for the handshake, which may take up to the start limit.
    assert waiting.startswith("echo: starting the command ")
    assert waiting.endswith("(waiting up to 30s for its handshake)...")
    assert result.startswith("echo: connected, ")
    assert "\n  echo  " in output and "\n  add  " in output


def test_test_upstream_fails_with_the_upstreams_error(monkeypatch):
    monkeypatch.delenv("MISSING_TOKEN", raising=False)
    echo(env={"TOKEN": "${MISSING_TOKEN}"})
    with pytest.raises(CommandError, match="set MISSING_TOKEN in the gateway's environment"):
        run("test_upstream", "echo")
    Upstream.objects.create(name="ghost", command="/nonexistent/mcp-server")
    with pytest.raises(CommandError, match="upstream 'ghost' unavailable: could not start"):
        run("test_upstream", "ghost")


def test_test_upstream_with_an_unknown_name_lists_the_known_ones():
    echo()
    with pytest.raises(CommandError, match=r"unknown upstream\(s\): nope \(known: echo\)"):
        run("test_upstream", "nope")
