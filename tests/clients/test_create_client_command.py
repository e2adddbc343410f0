"""`manage.py create_client`: prints the token alone on the last line; validates overrides."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from clients.models import Client
from clients.services import client_for_token
from tests.factories import UpstreamFactory

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("create_client", *args, stdout=out)
    return out.getvalue()


def test_the_last_line_is_the_token_and_it_works():
    output = run("alice")
    token = output.rstrip("\n").splitlines()[-1]
    client = client_for_token(token)
    assert client is not None and client.name == "alice"
    assert client.all_upstreams


def test_upstreams_and_overrides_are_applied():
    UpstreamFactory(name="github")
    UpstreamFactory(name="jira")
    UpstreamFactory(name="slack")
    run(
        "bob",
        "--upstreams",
        "github, jira",
        "--set",
        "response_threshold=32768",
        "--set",
        "indexing_enabled=off",
    )
    client = Client.objects.get(name="bob")
    assert not client.all_upstreams
    assert sorted(u.name for u in client.upstreams.all()) == ["github", "jira"]
    assert client.response_threshold == 32768
    assert client.indexing_enabled is False
    assert client.catalog_threshold is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "colour=red"], "unknown setting 'colour'"),
        (["--set", "response_threshold"], "expected FIELD=VALUE"),
        (["--set", "response_threshold=10"], "between 1024"),
        (["--set", "search_tool_name=IndexRead"], "both be named"),
        (["--upstreams", "nowhere"], "unknown upstream(s): nowhere"),
    ],
)
def test_bad_arguments_are_clear_errors_and_create_nothing(args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run("carol", *args)
    assert not Client.objects.filter(name="carol").exists()


def test_a_duplicate_name_is_a_clear_error():
    run("dave")
    with pytest.raises(CommandError, match="name"):
        run("dave")
    assert Client.objects.filter(name="dave").count() == 1
