"""Client and upstream page extras: the Connect panel and "Test connection"."""

import sys

import pytest
from django.urls import reverse

from gateway.models import Upstream
from tests.clients.test_admin import TOKEN_IN_PAGE
from tests.e2e.live import ECHO, SERVERS
from tests.factories import ClientFactory, UpstreamFactory, client_admin_form

pytestmark = pytest.mark.django_db
CLIENT_FORM = client_admin_form(name="erin")


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return client


def test_the_connect_panel_has_snippets_for_each_client_kind_with_a_placeholder(staff):
    erin = ClientFactory(name="erin")
    page = staff.get(reverse("admin:clients_client_change", args=[erin.pk])).content.decode()
    assert (
        "claude mcp add --transport http localrouter http://testserver/mcp "
        '--header "Authorization: Bearer &lt;your token&gt;"'
    ) in page
    assert '"mcpServers": {' in page and '"servers": {' in page and '"type": "http"' in page
    assert "python manage.py mcp_stdio --token &lt;your token&gt;" in page
    assert erin.plain_token not in page


def test_the_token_is_on_the_page_once_after_creation_and_gone_after_a_reload(staff):
    response = staff.post(reverse("admin:clients_client_add"), {**CLIENT_FORM, "_continue": "1"})
    page = response.content.decode()
    token = TOKEN_IN_PAGE.search(page).group(1)
    assert f'Authorization: Bearer {token}"' in page and f"--token {token}<" in page
    erin = ClientFactory._meta.model.objects.get(name="erin")
    again = staff.get(reverse("admin:clients_client_change", args=[erin.pk])).content.decode()
    assert token not in again and 'id="connect-panel"' in again


def test_an_invalid_client_form_saves_nothing_and_names_the_field(staff):
    response = staff.post(
        reverse("admin:clients_client_add"), {**CLIENT_FORM, "response_threshold": "-5"}
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not ClientFactory._meta.model.objects.filter(name="erin").exists()


def test_an_invalid_upstream_form_saves_nothing_and_names_the_field(staff):
    form = {"name": "bad name!", "transport": "stdio", "timeout_seconds": "-1", "command": "x"}
    response = staff.post(reverse("admin:gateway_upstream_add"), form)
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert not Upstream.objects.exists()


def test_testing_a_working_upstream_lists_its_tools(staff):
    echo = UpstreamFactory(name="echo", command=sys.executable, args=[ECHO])
    change = reverse("admin:gateway_upstream_change", args=[echo.pk])
    assert 'id="test-connection"' in staff.get(change).content.decode()
    response = staff.post(reverse("admin:gateway_upstream_test", args=[echo.pk]), follow=True)
    assert response.redirect_chain[-1][0] == change
    page = response.content.decode()
    assert (
        "Echo answered with" in page and "<code>echo</code>" in page and "<code>add</code>" in page
    )


def test_testing_a_broken_upstream_shows_its_error_without_its_secrets(staff):
    broken = UpstreamFactory(
        name="broken",
        command=sys.executable,
        args=[str(SERVERS / "fails_to_start.py")],
        env={"API_KEY": "s3cret-value"},
    )
    response = staff.post(reverse("admin:gateway_upstream_test", args=[broken.pk]), follow=True)
    page = response.content.decode()
    assert "Could not connect to broken" in page
    assert "s3cret-value" not in page


def test_test_connection_takes_only_post_from_staff(client, staff):
    echo = UpstreamFactory(name="echo")
    url = reverse("admin:gateway_upstream_test", args=[echo.pk])
    assert staff.get(url).status_code == 405
    staff.logout()
    assert client.post(url)["Location"].startswith("/admin/login/")
