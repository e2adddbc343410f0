"""Grants in use: access tokens refreshed before they expire and after a 401, one refresh at a
time per grant (Redis or a process lock), a revoked refresh token marked "needs
re-authorization", machine grants, disconnect, against the fixture authorization server."""

from __future__ import annotations

import os
from datetime import timedelta

import anyio
import httpx2
import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from gateway.operations.audit.models import AuditEvent
from gateway.upstream_auth import token_cache
from gateway.upstream_auth.models import Grant
from gateway.upstream_auth.tokens import AuthorizationRequired, access_token, token_rejected
from gateway.upstream_config.status import health_badge
from tests.fixtures.http_server import run_oauth_server
from tests.fixtures.oauth_connect import connect, oauth_upstream, page_messages, whoami

pytestmark = pytest.mark.django_db(transaction=True)
REDIS = os.environ.get("TEST_REDIS_URL")


@pytest.fixture(scope="module")
def server():
    with run_oauth_server("--client-id", "machine-id", "--client-secret", "fixture-secret") as srv:
        yield srv


@pytest.fixture(autouse=True)
def _no_cached_tokens():
    token_cache.forget_all()


def stats(server) -> dict[str, int]:
    return httpx2.get(f"http://127.0.0.1:{server.port}/test/stats").json()


@pytest.fixture
def alice(client):
    user = User.objects.create_user("alice", is_staff=True)
    client.force_login(user)
    return user


@pytest.fixture
def connected(client, alice, server):
    """An upstream alice connected; its grant."""
    upstream = oauth_upstream(server.url)
    connect(client, upstream, "alice")
    return Grant.objects.get(upstream=upstream, member=alice)


def fetch(grant: Grant) -> str:
    return async_to_sync(access_token)(grant.upstream_id, grant.member_id)


def test_a_token_far_from_expiry_is_used_as_it_is(connected, server):
    before = stats(server).get("refresh_token", 0)
    assert fetch(connected) == fetch(connected) == connected.opened("access_token")
    assert stats(server).get("refresh_token", 0) == before


def test_a_token_about_to_expire_is_refreshed_first(connected, server):
    old = connected.opened("access_token")
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Grant.objects.filter(pk=connected.pk).update(
        tokens_issued_at=an_hour_ago, expires_at=timezone.now() + timedelta(seconds=5)
    )

    new = fetch(connected)

    assert new != old
    assert whoami(server.url, new) == "alice"
    assert fetch(connected) == new  # refreshed once, for an hour


def test_a_rejected_token_is_refreshed_once_across_concurrent_callers(connected, server):
    old = connected.opened("access_token")
    before = stats(server).get("refresh_token", 0)

    async def both() -> list[str]:
        answers: list[str] = []

        async def one() -> None:
            answers.append(await token_rejected(connected.upstream_id, connected.member_id, old))

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
        return answers

    first, second = anyio.run(both)

    assert first == second != old
    assert stats(server)["refresh_token"] == before + 1


@pytest.mark.skipif(not REDIS, reason="TEST_REDIS_URL is not set (CI sets it)")
def test_with_redis_the_refresh_lock_is_shared_through_redis(connected, server):
    with override_settings(REDIS_URL=REDIS, GRANT_LOCK_PREFIX="lr-test-36-grants:"):
        test_a_rejected_token_is_refreshed_once_across_concurrent_callers(connected, server)


def test_a_revoked_refresh_token_marks_the_grant_for_reauthorization(client, connected, server):
    old = connected.opened("access_token")
    httpx2.post(f"http://127.0.0.1:{server.port}/test/revoke-refresh-tokens")

    with pytest.raises(AuthorizationRequired) as refused:
        async_to_sync(token_rejected)(connected.upstream_id, connected.member_id, old)

    assert refused.value.upstream_name == "hosted"
    assert refused.value.connect_url.endswith(
        f"/admin/gateway/grant/connect/{connected.upstream_id}/"
    )
    assert "refresh refused: invalid_grant" in refused.value.reason
    grant = Grant.objects.get(pk=connected.pk)  # the row and its tokens stay
    assert (
        grant.needs_reauthorization and grant.access_token_sealed == connected.access_token_sealed
    )
    with pytest.raises(AuthorizationRequired, match="needs re-authorization"):
        fetch(grant)
    assert health_badge(grant.upstream).text.startswith("needs re-authorization: alice")
    page = client.get("/admin/gateway/grant/")
    assert b"needs re-authorization: refresh refused: invalid_grant" in page.content

    connect(client, grant.upstream, "alice")  # reconnecting mends it

    assert whoami(server.url, fetch(grant)) == "alice"


def test_an_unreachable_server_does_not_mark_the_grant(connected):
    Grant.objects.filter(pk=connected.pk).update(token_endpoint="http://127.0.0.1:9/token")
    with pytest.raises(AuthorizationRequired, match="unreachable"):
        async_to_sync(token_rejected)(
            connected.upstream_id, connected.member_id, connected.opened("access_token")
        )
    assert not Grant.objects.get(pk=connected.pk).needs_reauthorization


def test_disconnect_revokes_then_deletes(client, connected, server):
    token = connected.opened("access_token")
    before = stats(server).get("revoked", 0)

    page = client.post(f"/admin/gateway/grant/disconnect/{connected.upstream_id}/", follow=True)

    assert page_messages(page) == ["Disconnected hosted (its tokens were revoked)."]
    assert not Grant.objects.exists()
    events = AuditEvent.objects.filter(kind="change", object_type="connection").order_by("id")
    assert list(events.values_list("action", "actor")) == [("added", "alice"), ("revoked", "alice")]
    assert stats(server)["revoked"] == before + 2
    refused = httpx2.post(server.url, json={}, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401


def test_a_member_without_a_grant_or_a_client_without_a_member_gets_the_connect_link(alice, server):
    upstream = oauth_upstream(server.url)
    with pytest.raises(AuthorizationRequired, match="you have not connected it yet") as refused:
        async_to_sync(access_token)(upstream.pk, alice.pk)
    assert "connect it at http" in str(refused.value)
    with pytest.raises(AuthorizationRequired, match="this client belongs to no member"):
        async_to_sync(access_token)(upstream.pk, None)


def test_a_machine_grant_is_fetched_with_client_credentials_on_first_use(server):
    upstream = oauth_upstream(server.url, mode="machine", client_id="machine-id")

    token = async_to_sync(access_token)(upstream.pk, None)

    assert whoami(server.url, token) == "machine:machine-id"
    grant = Grant.objects.get(upstream=upstream)
    assert grant.member is None and grant.mode == "machine"
    Grant.objects.filter(pk=grant.pk).update(expires_at=timezone.now())
    renewed = async_to_sync(access_token)(upstream.pk, 7)  # any member: the team's grant
    assert renewed != token and whoami(server.url, renewed) == "machine:machine-id"


def test_a_machine_token_for_another_resource_is_refused_revoked_and_not_kept():
    elsewhere = "https://elsewhere.example/mcp"
    options = ("--client-id", "machine-id", "--client-secret", "fixture-secret")
    with run_oauth_server(*options, "--token-audience", elsewhere) as other:
        upstream = oauth_upstream(other.url, mode="machine", client_id="machine-id")
        with pytest.raises(AuthorizationRequired, match=f"another resource \\({elsewhere}\\)"):
            async_to_sync(access_token)(upstream.pk, None)
        assert stats(other)["revoked"] == 1
    assert not Grant.objects.filter(upstream=upstream).exists()


def test_a_short_lived_token_is_refreshed_in_its_second_half_only(connected):
    now = timezone.now()
    Grant.objects.filter(pk=connected.pk).update(
        tokens_issued_at=now - timedelta(seconds=1), expires_at=now + timedelta(seconds=9)
    )
    assert fetch(connected) == connected.opened("access_token")
    Grant.objects.filter(pk=connected.pk).update(
        tokens_issued_at=now - timedelta(seconds=6), expires_at=now + timedelta(seconds=4)
    )
    token_cache.forget_all()  # as if the cached while had passed
    assert fetch(connected) != connected.opened("access_token")


def test_a_worker_reuses_a_token_it_read_lately_until_the_upstream_refuses_it(connected):
    token = fetch(connected)
    Grant.objects.filter(pk=connected.pk).delete()  # as another worker's Disconnect would

    assert fetch(connected) == token  # no database read
    with pytest.raises(AuthorizationRequired, match="you have not connected it yet"):
        async_to_sync(access_token)(connected.upstream_id, connected.member_id, fresh=True)
    with pytest.raises(AuthorizationRequired, match="you have not connected it yet"):
        async_to_sync(token_rejected)(connected.upstream_id, connected.member_id, token)
    with pytest.raises(AuthorizationRequired):
        fetch(connected)
