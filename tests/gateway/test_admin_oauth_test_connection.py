"""Test connection on an OAuth upstream carries the grant of the admin who presses it."""

import pytest
from django.urls import reverse

from gateway.models import Upstream
from tests.fixtures.http_server import run_oauth_server
from tests.fixtures.oauth_tokens import obtain_tokens, store_grant

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def oauth_server():
    with run_oauth_server() as server:
        yield server


@pytest.fixture
def hosted(oauth_server, admin_user) -> Upstream:
    upstream = Upstream.objects.create(name="hosted", transport="http", url=oauth_server.url)
    store_grant("hosted", "someone-else", obtain_tokens(oauth_server.url, "someone-else"))
    return upstream


def press_test_connection(client, admin_user, upstream: Upstream) -> str:
    client.force_login(admin_user)
    url = reverse("admin:gateway_upstream_test", args=[upstream.pk])
    return client.post(url, follow=True).content.decode()


def test_it_lists_the_tools_through_the_admins_own_grant(client, admin_user, oauth_server, hosted):
    store_grant("hosted", admin_user.username, obtain_tokens(oauth_server.url, "the-admin"))
    page = press_test_connection(client, admin_user, hosted)
    assert "whoami" in page


def test_without_a_grant_of_their_own_they_are_told_where_to_connect(client, admin_user, hosted):
    page = press_test_connection(client, admin_user, hosted)
    assert "Could not connect to hosted" in page
    assert "you have not connected it yet" in page
    assert f"/admin/gateway/grant/connect/{hosted.pk}/" in page
