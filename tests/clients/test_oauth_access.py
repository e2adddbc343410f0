"""An OAuth access token at /mcp: accepted for this resource with the scope and an active
member and client; otherwise refused with the RFC 6750 error and why. Approving the same
application again reuses the member's client."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application

from clients.models import Client
from clients.oauth.access import oauth_access
from clients.oauth.connections import connected_clients, connection_client, connection_revoke

pytestmark = pytest.mark.django_db
RESOURCE = "https://mcp.example.com/mcp"
TOKEN = "accessTokenForTheTests0123456789"


@pytest.fixture
def member() -> User:
    return User.objects.create_user("mia", is_staff=True)


@pytest.fixture
def application() -> Application:
    return Application.objects.create(
        name="Assistant",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="http://127.0.0.1:9/cb",
    )


def issue(member, application, **fields) -> AccessToken:
    values = {
        "expires": timezone.now() + timedelta(hours=1),
        "scope": "mcp",
        "resource": [RESOURCE],
        **fields,
    }
    return AccessToken.objects.create(user=member, application=application, token=TOKEN, **values)


def test_a_good_token_lets_in_the_members_client(member, application):
    client = connection_client(user=member, application=application)
    issue(member, application)
    access = oauth_access(TOKEN, RESOURCE)
    assert access.client == client and access.error == ""
    assert client.name == "Assistant (mia)" and client.owner == member


def test_approving_again_reuses_the_client(member, application):
    first = connection_client(user=member, application=application)
    assert connection_client(user=member, application=application) == first
    assert Client.objects.filter(oauth_application=application).count() == 1


@pytest.mark.parametrize(
    ("change", "error", "why"),
    [
        ({"expires": timezone.now() - timedelta(seconds=1)}, "invalid_token", "expired"),
        ({"resource": ["https://other.example/mcp"]}, "invalid_token", "another resource"),
        ({"resource": []}, "invalid_token", "another resource"),
        ({"scope": "read"}, "insufficient_scope", "lacks the 'mcp' scope"),
    ],
)
def test_a_token_that_does_not_fit_is_refused_with_why(member, application, change, error, why):
    connection_client(user=member, application=application)
    issue(member, application, **change)
    access = oauth_access(TOKEN, RESOURCE)
    assert access.client is None and access.error == error and why in access.description


def test_an_inactive_member_or_client_is_refused(member, application):
    client = connection_client(user=member, application=application)
    issue(member, application)
    Client.objects.filter(pk=client.pk).update(is_active=False)
    assert "revoked" in oauth_access(TOKEN, RESOURCE).description
    Client.objects.filter(pk=client.pk).update(is_active=True)
    User.objects.filter(pk=member.pk).update(is_active=False)
    assert "inactive" in oauth_access(TOKEN, RESOURCE).description


def test_an_unknown_token_is_refused(member, application):
    assert oauth_access("nothing-like-it", RESOURCE).error == "invalid_token"
    assert oauth_access("x" * 600, RESOURCE).error == "invalid_token"


def test_members_see_their_connections_and_a_superuser_everyones(member, application):
    other = User.objects.create_user("olu", is_staff=True)
    boss = User.objects.create_superuser("boss")
    mine = connection_client(user=member, application=application)
    theirs = connection_client(user=other, application=application)
    assert list(connected_clients(member)) == [mine]
    assert set(connected_clients(boss)) == {mine, theirs}


def test_disconnecting_deletes_the_tokens_and_keeps_the_client(member, application):
    client = connection_client(user=member, application=application)
    issue(member, application)
    assert connection_revoke(client=client, actor="mia") == 1
    assert oauth_access(TOKEN, RESOURCE).client is None
    assert Client.objects.filter(pk=client.pk).exists()


def test_a_registration_token_is_not_an_mcp_token(application):
    """Dynamic registration's management token is an access token without a member."""
    AccessToken.objects.create(
        user=None,
        application=application,
        token=TOKEN,
        expires=timezone.now() + timedelta(hours=1),
        scope="oauth2_provider:registration",
        resource=[RESOURCE],
    )
    assert oauth_access(TOKEN, RESOURCE).error == "invalid_token"
