"""UpstreamSpec: validation, and a repr that keeps secrets out of logs."""

from __future__ import annotations

import pytest

from gateway.upstreams import UpstreamSpec


def test_repr_shows_env_and_header_names_but_not_their_values():
    spec = UpstreamSpec(
        name="gh",
        transport="stdio",
        command="npx",
        args=("server",),
        env={"GITHUB_TOKEN": "ghp_secretvalue"},
    )
    web = UpstreamSpec(
        name="web",
        transport="http",
        url="https://user:pw@example.com/mcp?api_key=k123",
        headers={"Authorization": "Bearer tok-9999"},
    )
    assert "GITHUB_TOKEN" in repr(spec) and "ghp_secretvalue" not in repr(spec)
    assert "Authorization" in repr(web)
    for secret in ("tok-9999", "pw@", "k123"):
        assert secret not in repr(web) and secret not in str(web)


def test_secret_values_are_the_env_and_header_values_longest_first():
    spec = UpstreamSpec(
        name="x", transport="http", url="http://h/mcp", headers={"A": "abcd", "B": "abcdefgh"}
    )
    assert spec.secret_values() == ("abcdefgh", "abcd")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "", "transport": "stdio", "command": "x"},
        {"name": "a", "transport": "stdio"},
        {"name": "a", "transport": "http"},
        {"name": "a", "transport": "sse"},
        {"name": "a", "transport": "ftp", "url": "ftp://x"},
        {"name": "a", "transport": "stdio", "command": "x", "timeout": 0},
    ],
)
def test_incomplete_specs_are_rejected(kwargs):
    with pytest.raises(ValueError):
        UpstreamSpec(**kwargs)


def test_specs_compare_by_value_and_args_become_a_tuple():
    first = UpstreamSpec(name="a", transport="stdio", command="x", args=["1"], env={"K": "v"})  # type: ignore[arg-type]
    second = UpstreamSpec(name="a", transport="stdio", command="x", args=("1",), env={"K": "v"})
    assert first == second and first.args == ("1",)
    assert hash(first) == hash(second)
