"""Admin flows: token shown once, regeneration, effective settings, staff-only pages."""

import re

import pytest
from django.urls import reverse

from clients.models import Client, GlobalSettings
from clients.services import client_for_token
from gateway.admin.forms import MASK, masked_lines
from gateway.models import Upstream
from tests.factories import ClientFactory, UpstreamFactory, client_admin_form

pytestmark = pytest.mark.django_db
TOKEN_IN_PAGE = re.compile(r"<code class='client-token'>(lr_[A-Za-z0-9_-]+)</code>")

CLIENT_FORM = client_admin_form(name="alice")


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return client


def session_data(client) -> str:
    """Everything the session store holds for this browser, decoded."""
    return str(client.session.load())


def test_creating_a_client_shows_its_token_once(staff):
    response = staff.post(reverse("admin:clients_client_add"), CLIENT_FORM)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    token = TOKEN_IN_PAGE.search(response.content.decode()).group(1)
    assert client_for_token(token).name == "alice"
    assert token not in session_data(staff)
    page = staff.get(reverse("admin:clients_client_change", args=[client_for_token(token).pk]))
    assert token not in page.content.decode()
    listing = staff.get(reverse("admin:clients_client_changelist")).content.decode()
    assert token[:7] + "…" in listing and token not in listing


def test_regenerating_shows_a_new_token_once_and_the_old_one_stops(staff):
    alice = ClientFactory(name="alice")
    old = alice.plain_token
    url = reverse("admin:clients_client_regenerate", args=[alice.pk])
    response = staff.post(url)
    new = TOKEN_IN_PAGE.search(response.content.decode()).group(1)
    assert new != old
    assert client_for_token(old) is None
    assert client_for_token(new) == alice
    assert new not in session_data(staff)
    for _ in range(2):
        page = staff.get(reverse("admin:clients_client_change", args=[alice.pk]))
        assert new not in page.content.decode()
    assert new not in session_data(staff)
    assert staff.get(url).status_code == 405


def test_the_overrides_fieldset_shows_effective_values_and_their_source(staff):
    team = GlobalSettings.load()
    team.catalog_threshold = 65536
    team.save()
    alice = ClientFactory(name="alice", response_threshold=4096)
    page = staff.get(reverse("admin:clients_client_change", args=[alice.pk])).content.decode()
    assert "4096 (client override)" in page
    assert "65536 (global override)" in page
    assert "IndexSearch (built-in default)" in page


def test_the_guardrails_fieldset_shows_mask_secrets_and_where_it_comes_from(staff):
    alice = ClientFactory(name="alice")
    url = reverse("admin:clients_client_change", args=[alice.pk])
    page = staff.get(url).content.decode()
    assert "Guardrails" in page and "on (built-in default)" in page
    team = GlobalSettings.load()
    team.mask_secrets = False
    team.save()
    assert "off (global override)" in staff.get(url).content.decode()
    alice.mask_secrets = True
    alice.save()
    assert "on (client override)" in staff.get(url).content.decode()


def test_invalid_overrides_are_field_errors_and_save_nothing(staff):
    form = {**CLIENT_FORM, "response_threshold": "10", "read_tool_name": "bad name"}
    response = staff.post(reverse("admin:clients_client_add"), form)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "response_threshold" in errors and "read_tool_name" in errors
    assert not Client.objects.exists()


def test_the_client_list_shows_prefix_upstreams_and_last_seen(staff):
    github = UpstreamFactory(name="github")
    alice = ClientFactory(name="alice", all_upstreams=False)
    alice.upstreams.add(github)
    page = staff.get(reverse("admin:clients_client_changelist")).content.decode()
    assert alice.masked_token in page
    assert "github" in page
    assert "Last seen" in page


def test_global_settings_open_as_a_single_page(staff):
    response = staff.get(reverse("admin:clients_globalsettings_changelist"))
    assert response.status_code == 302
    page = staff.get(response.url)
    assert page.status_code == 200
    assert "16384 (built-in default)" in page.content.decode()
    assert staff.get(reverse("admin:clients_globalsettings_add")).status_code == 403


@pytest.mark.parametrize(
    "url_name",
    ["admin:clients_client_changelist", "admin:gateway_upstream_changelist", "admin:index"],
)
def test_anonymous_visitors_and_non_staff_get_the_login_page(client, django_user_model, url_name):
    response = client.get(reverse(url_name))
    assert response.status_code == 302 and "/admin/login/" in response.url
    user = django_user_model.objects.create_user("mallory", password="pw-123456789")
    client.force_login(user)
    response = client.get(reverse(url_name))
    assert response.status_code == 302 and "/admin/login/" in response.url


def test_upstream_secrets_are_masked_and_kept_when_saved_unchanged(staff):
    upstream = UpstreamFactory(
        name="github",
        env={"GITHUB_TOKEN": "ghp_supersecret", "ORG": "${ORG}"},
    )
    url = reverse("admin:gateway_upstream_change", args=[upstream.pk])
    page = staff.get(url).content.decode()
    assert "ghp_supersecret" not in page
    assert f"GITHUB_TOKEN={MASK}" in page and "ORG=${ORG}" in page
    form = {
        "name": "github",
        "transport": "stdio",
        "enabled": "on",
        "timeout_seconds": "30",
        "notes": "",
        "command": "docker",
        "args": ["run", "", "-i"],
        "cwd": "",
        "url": "",
        "env_text": f"GITHUB_TOKEN={MASK}\nORG=${{ORG}}\nNEW=value",
        "headers_text": "",
    }
    response = staff.post(url, form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    upstream.refresh_from_db()
    assert upstream.env == {"GITHUB_TOKEN": "ghp_supersecret", "ORG": "${ORG}", "NEW": "value"}
    assert upstream.timeout_seconds == 30
    assert upstream.args == ["run", "-i"]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"transport": "stdio", "command": ""}, "command"),
        ({"transport": "http", "url": "ftp://example.com"}, "url"),
        ({"transport": "http", "url": "not a url"}, "url"),
        ({"name": "Bad Name"}, "name"),
        ({"headers_text": "no separator here"}, "headers_text"),
        ({"env_text": f"UNKNOWN={MASK}"}, "env_text"),
    ],
)
def test_upstream_form_rejects_bad_values_and_saves_nothing(staff, changes, field):
    form = {
        "name": "svc",
        "transport": "stdio",
        "enabled": "on",
        "timeout_seconds": "60",
        "notes": "",
        "command": "python",
        "args": [],
        "cwd": "",
        "url": "",
        "env_text": "",
        "headers_text": "",
        **changes,
    }
    response = staff.post(reverse("admin:gateway_upstream_add"), form)
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Upstream.objects.exists()


def test_upstream_list_never_shows_url_credentials(staff):
    UpstreamFactory(name="remote", transport="http", url="https://user:pw@example.com/mcp?key=abc")
    page = staff.get(reverse("admin:gateway_upstream_changelist")).content.decode()
    assert "https://***@example.com/mcp?key=***" in page
    assert "pw@" not in page and "key=abc" not in page


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("${GITHUB_TOKEN}", True),
        ("Bearer ${NOTION_TOKEN}", True),
        ("Bearer sk-live-123", False),
        ("${A}sk-live-123456789", False),
        ("plain", False),
    ],
)
def test_only_placeholder_values_are_shown_back(value, shown):
    assert (value in masked_lines({"K": value}, separator="=")) is shown
