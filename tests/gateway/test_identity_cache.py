"""Token lookups: unknown tokens are remembered briefly, saves make changes visible at once."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from clients.models import Client
from clients.services import client_create, client_regenerate_token
from clients.tokens import hash_token
from gateway.sessions import identity as identity_module
from gateway.sessions.identity import INVALID, IdentityCache

RESOURCE = "http://127.0.0.1:8000/mcp"

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lookups(monkeypatch) -> list[str]:
    """Every token that reached the database lookup."""
    seen: list[str] = []
    real = identity_module.identity_for_token

    def counting(token: str, resource: str):
        seen.append(token)
        return real(token, resource)

    monkeypatch.setattr(identity_module, "identity_for_token", counting)
    return seen


async def test_unknown_token_is_looked_up_once_within_the_refusal_window(lookups) -> None:
    cache = IdentityCache(refused_seconds=60)
    for _ in range(5):
        assert await cache.authenticate("lr_not-a-token", RESOURCE) == INVALID
    assert lookups == ["lr_not-a-token"]


async def test_unknown_token_is_looked_up_again_after_the_window(lookups) -> None:
    cache = IdentityCache(refused_seconds=0)
    assert await cache.authenticate("lr_not-a-token", RESOURCE) == INVALID
    assert await cache.authenticate("lr_not-a-token", RESOURCE) == INVALID
    assert len(lookups) == 2


async def test_a_token_refused_then_saved_for_a_client_is_accepted_at_once() -> None:
    cache = identity_module.identities  # the one the model signals clear
    client, token = await _create_client()
    await sync_to_async(Client.objects.filter(pk=client.pk).update)(token_hash="elsewhere")
    assert await cache.authenticate(token, RESOURCE) == INVALID  # unknown, now remembered
    client.token_hash = hash_token(token)
    await sync_to_async(client.save)()
    assert (await cache.authenticate(token, RESOURCE)).id == client.pk


async def test_saving_a_client_forgets_refusals_through_the_signal() -> None:
    cache = identity_module.identities
    client, token = await _create_client()
    assert await cache.authenticate("lr_will-be-checked", RESOURCE) == INVALID
    assert cache._refused
    await _regenerate(client)
    assert not cache._refused


async def test_a_revoked_token_is_refused_at_once() -> None:
    cache = identity_module.identities
    client, token = await _create_client()
    assert (await cache.authenticate(token, RESOURCE)).id == client.pk
    await _regenerate(client)
    assert await cache.authenticate(token, RESOURCE) == INVALID


async def test_refusals_are_bounded(lookups) -> None:
    cache = IdentityCache(refused_seconds=60, refused_limit=3)
    for n in range(5):
        await cache.authenticate(f"lr_bad-{n}", RESOURCE)
    assert len(cache._refused) == 3
    await cache.authenticate("lr_bad-0", RESOURCE)  # evicted, so looked up again
    assert lookups.count("lr_bad-0") == 2


async def _create_client():
    return await sync_to_async(client_create)(name="cached")


async def _regenerate(client) -> str:
    return await sync_to_async(client_regenerate_token)(client=client)


async def test_concurrent_requests_of_a_client_share_one_lookup(lookups) -> None:
    _client, token = await _create_client()
    cache = IdentityCache(seconds=0)  # every request finds the entry expired
    found = await asyncio.gather(*(cache.authenticate(token, RESOURCE) for _ in range(8)))
    assert len({identity.id for identity in found}) == 1
    assert lookups == [token]
    await cache.authenticate(token, RESOURCE)
    assert len(lookups) == 2  # a later request looks it up again
