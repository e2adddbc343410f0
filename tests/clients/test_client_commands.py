"""`list_clients`, `revoke_client NAME` and `regenerate_token NAME` from the command line."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from clients.services import client_create, client_for_token
from gateway.models import Upstream
from tests.factories import UpstreamFactory

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_list_clients_shows_prefix_state_upstreams_and_never_a_token():
    UpstreamFactory(name="github")
    alice, alice_token = client_create(name="alice")
    _, bob_token = client_create(name="bob", upstreams=Upstream.objects.by_names(["github"]))
    run("revoke_client", "bob")
    lines = run("list_clients").splitlines()
    assert lines[0].split()[:4] == ["name", "token", "state", "upstreams"]
    assert lines[1].split() == ["alice", alice.masked_token, "active", "all", "never"]
    assert lines[2].split()[0::2] == ["bob", "revoked", "never"]
    assert lines[2].split()[3] == "github"
    assert alice_token not in "\n".join(lines) and bob_token not in "\n".join(lines)


def test_revoke_client_stops_its_token_at_once():
    _, token = client_create(name="alice")
    assert client_for_token(token) is not None
    assert "Revoked client 'alice'" in run("revoke_client", "alice")
    assert client_for_token(token) is None


def test_regenerate_token_prints_a_working_token_and_the_old_one_stops():
    _, old = client_create(name="alice")
    new = run("regenerate_token", "alice").splitlines()[-1]
    assert client_for_token(old) is None
    assert client_for_token(new).name == "alice"


def test_a_revoked_client_needs_activate_to_work_again():
    client_create(name="alice")
    run("revoke_client", "alice")
    output = run("regenerate_token", "alice")
    assert "still revoked" in output
    assert client_for_token(output.splitlines()[-1]) is None
    token = run("regenerate_token", "alice", "--activate").splitlines()[-1]
    assert client_for_token(token).name == "alice"


@pytest.mark.parametrize("command", ["revoke_client", "regenerate_token"])
def test_an_unknown_client_is_a_clear_error_naming_the_known_ones(command):
    client_create(name="alice")
    with pytest.raises(CommandError, match=r"no client named 'bob' \(known: alice\)"):
        run(command, "bob")
