"""Client tokens: random, shown once, stored only as a hash, regenerable, revocable."""

import pytest

from clients.models import Client
from clients.services import client_create, client_for_token, client_regenerate_token
from clients.tokens import TOKEN_BYTES, generate_token, hash_token

pytestmark = pytest.mark.django_db


def test_tokens_carry_at_least_32_random_bytes_and_differ():
    tokens = {generate_token() for _ in range(100)}
    assert len(tokens) == 100
    assert TOKEN_BYTES >= 32
    assert all(t.startswith("lr_") and len(t) >= 3 + 43 for t in tokens)


def test_only_the_hash_and_a_short_prefix_are_stored():
    client, token = client_create(name="alice")
    row = Client.objects.values().get(pk=client.pk)
    assert token not in str(row)
    assert row["token_hash"] == hash_token(token)
    assert row["token_prefix"] == token[:7]
    assert client.masked_token == token[:7] + "…"


def test_the_token_authenticates_its_client():
    client, token = client_create(name="alice")
    assert client_for_token(token) == client


@pytest.mark.parametrize("presented", ["", "lr_", "nope", "x" * 10_000, "lr_\x00\udcff"])
def test_wrong_tokens_authenticate_nobody(presented):
    client_create(name="alice")
    assert client_for_token(presented) is None


def test_a_matching_prefix_is_not_enough():
    _, token = client_create(name="alice")
    assert client_for_token(token[:7] + "A" * (len(token) - 7)) is None


def test_regenerating_stops_the_old_token_at_once():
    client, old = client_create(name="alice")
    new = client_regenerate_token(client=client)
    assert new != old
    assert client_for_token(old) is None
    assert client_for_token(new) == client


def test_an_inactive_client_cannot_authenticate():
    client, token = client_create(name="alice")
    client.is_active = False
    client.save()
    assert client_for_token(token) is None
