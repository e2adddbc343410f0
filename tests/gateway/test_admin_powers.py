"""Admin powers: only superusers decide what an upstream runs or reaches; other staff see
upstreams with their secrets masked and change only the harmless fields. The live sessions
page is for those who may view session reports."""

import json

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from gateway.models import Upstream
from tests.factories import UpstreamFactory
from tests.fixtures.http_server import free_port

pytestmark = pytest.mark.django_db
SECRETS = ("PASSWORD9", "APIKEY9", "HEADER9", "ENV9")
REMOTE = {
    "name": "remote",
    "transport": "http",
    "url": "http://user:PASSWORD9@127.0.0.1:9/mcp?api_key=APIKEY9&region=eu",
    "headers": {"Authorization": "Bearer HEADER9"},
    "env": {"TOKEN": "ENV9"},
}


def staff_with(client, django_user_model, *codenames: str):
    user = django_user_model.objects.create_user("operator", password="pw-123456789", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    return client


@pytest.fixture
def operator(client, django_user_model):
    """Staff, not a superuser, with every upstream permission."""
    return staff_with(
        client, django_user_model, *(f"{p}_upstream" for p in ("add", "change", "view"))
    )


@pytest.fixture
def viewer(client, django_user_model):
    return staff_with(client, django_user_model, "view_upstream")


@pytest.fixture
def superuser(client, admin_user):
    client.force_login(admin_user)
    return client


def change_form(upstream: Upstream, **changes: str | list[str]) -> dict[str, str | list[str]]:
    form = {
        "name": upstream.name,
        "transport": upstream.transport,
        "enabled": "on",
        "timeout_seconds": "60",
        "notes": "",
        "command": upstream.command,
        "args": list(upstream.args),  # one box per argument
        "cwd": upstream.cwd,
        "url": upstream.url,
        "env_text": "",
        "headers_text": "",
    }
    form.update(changes)
    return {key: value for key, value in form.items() if value is not None}


DANGEROUS = {
    "command": "/bin/sh",
    "args": ["-c", "id"],
    "env_text": "LD_PRELOAD=/tmp/x.so",
    "url": "http://evil.example/mcp",
    "headers_text": "X-Steal: yes",
    "cwd": "/tmp",
}


def test_other_staff_change_only_harmless_fields_of_an_upstream(operator):
    upstream = UpstreamFactory(name="local", env={"TOKEN": "ENV9"})
    before = Upstream.objects.values().get(pk=upstream.pk)
    url = reverse("admin:gateway_upstream_change", args=[upstream.pk])
    form = change_form(upstream, enabled=None, timeout_seconds="30", notes="on call", **DANGEROUS)
    response = operator.post(url, form)
    assert response.status_code == 302
    after = Upstream.objects.values().get(pk=upstream.pk)
    for field in ("name", "transport", "command", "args", "env", "cwd", "url", "headers"):
        assert after[field] == before[field], field
    assert (after["enabled"], after["timeout_seconds"], after["notes"]) == (False, 30, "on call")


def test_other_staff_cannot_add_upstreams(operator):
    url = reverse("admin:gateway_upstream_add")
    assert operator.get(url).status_code == 403
    assert (
        operator.post(url, change_form(Upstream(name="new", command="/bin/sh"))).status_code == 403
    )
    changelist = operator.get(reverse("admin:gateway_upstream_changelist")).content.decode()
    assert reverse("admin:gateway_upstream_import") not in changelist and url not in changelist
    assert not Upstream.objects.exists()


def test_other_staff_cannot_import_config_files(operator):
    url = reverse("admin:gateway_upstream_import")
    config = {"mcpServers": {"x": {"command": "/bin/sh", "args": ["-c", "id"]}}}
    assert operator.get(url).status_code == 403
    assert operator.post(url, {"config_text": json.dumps(config)}).status_code == 403
    assert not Upstream.objects.exists()


def test_other_staff_cannot_test_a_connection(operator):
    upstream = UpstreamFactory(name="local")
    page = operator.get(reverse("admin:gateway_upstream_change", args=[upstream.pk]))
    assert 'id="test-connection"' not in page.content.decode()
    response = operator.post(reverse("admin:gateway_upstream_test", args=[upstream.pk]))
    assert response.status_code == 403


def test_a_superuser_changes_what_an_upstream_runs_and_reaches(superuser):
    upstream = UpstreamFactory(name="local")
    url = reverse("admin:gateway_upstream_change", args=[upstream.pk])
    assert 'id="test-connection"' in superuser.get(url).content.decode()
    response = superuser.post(url, change_form(upstream, **DANGEROUS))
    assert response.status_code == 302, response.context["adminform"].form.errors
    upstream.refresh_from_db()
    assert (upstream.command, upstream.args, upstream.cwd) == ("/bin/sh", ["-c", "id"], "/tmp")
    assert upstream.env == {"LD_PRELOAD": "/tmp/x.so"} and upstream.headers == {"X-Steal": "yes"}
    assert upstream.url == "http://evil.example/mcp"


def test_a_superuser_sees_the_real_url_to_edit_it(superuser):
    upstream = UpstreamFactory(**REMOTE)
    page = superuser.get(reverse("admin:gateway_upstream_change", args=[upstream.pk]))
    assert 'value="http://user:PASSWORD9@127.0.0.1:9/mcp?api_key=APIKEY9&amp;region=eu"' in (
        page.content.decode()
    )


@pytest.mark.parametrize("who", ["viewer", "operator"])
def test_staff_who_are_not_superusers_never_see_an_upstreams_secrets(request, who):
    staff = request.getfixturevalue(who)
    upstream = UpstreamFactory(**REMOTE)
    pages = [
        reverse("admin:gateway_upstream_changelist"),
        reverse("admin:gateway_upstream_change", args=[upstream.pk]),
        reverse("admin:gateway_upstream_history", args=[upstream.pk]),
        reverse("admin:index"),
    ]
    for url in pages:
        response = staff.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert not [secret for secret in SECRETS if secret in page], url
    change = staff.get(pages[1]).content.decode()
    assert "http://***@127.0.0.1:9/mcp?api_key=***&amp;region=eu" in change
    assert "Authorization: ••••••••" in change
    # Searching the list must not reveal the URL one guess at a time.
    found = staff.get(pages[0], {"q": "PASSWORD9"}).context["cl"].result_count
    assert found == 0


HTTP_SECTION, STDIO_SECTION = "HTTP (Streamable HTTP or legacy SSE)", "Local process (stdio)"


def test_view_only_staff_see_an_http_upstreams_url_and_headers_masked_and_no_stdio_section(viewer):
    upstream = UpstreamFactory(**{**REMOTE, "headers": {**REMOTE["headers"], "X-Org": "${ORG}"}})
    page = viewer.get(reverse("admin:gateway_upstream_change", args=[upstream.pk])).content.decode()
    assert HTTP_SECTION in page and STDIO_SECTION not in page
    assert "http://***@127.0.0.1:9/mcp?api_key=***&amp;region=eu" in page
    # Masked as a superuser's form shows them: placeholders stay readable, values never.
    assert "Authorization: ••••••••\nX-Org: ${ORG}" in page
    assert not [secret for secret in SECRETS if secret in page]
    # The help text is shown as written, not swallowed as an HTML tag.
    assert "Used as the tool prefix: &#x27;&lt;name&gt;__&lt;tool&gt;&#x27;." in page


def test_view_only_staff_see_a_stdio_upstreams_command_and_env_masked_and_no_http_section(viewer):
    upstream = UpstreamFactory(name="local", args=["--port", "1"], env={"TOKEN": "ENV9"})
    page = viewer.get(reverse("admin:gateway_upstream_change", args=[upstream.pk])).content.decode()
    assert STDIO_SECTION in page and HTTP_SECTION not in page
    assert upstream.command in page and "TOKEN=••••••••" in page and "ENV9" not in page


def test_a_failed_connection_test_names_the_url_with_its_credentials_masked(superuser):
    upstream = UpstreamFactory(
        **{**REMOTE, "url": REMOTE["url"].replace(":9/", f":{free_port()}/")}
    )
    url = reverse("admin:gateway_upstream_test", args=[upstream.pk])
    response = superuser.post(url, follow=True)
    message = " ".join(str(m) for m in response.context["messages"])
    assert (
        message.startswith("Could not connect to remote: ") and "http://***@127.0.0.1:" in message
    )
    assert "api_key=***&region=eu" in message
    assert not [secret for secret in SECRETS if secret in message]


def test_the_live_sessions_page_needs_the_session_report_view_permission(operator):
    url = reverse("admin:gateway_live_sessions")
    response = operator.get(url)
    assert response.status_code == 403
    assert "Live sessions" not in response.content.decode()


def test_staff_who_may_view_session_reports_see_the_live_sessions(client, django_user_model):
    reader = staff_with(client, django_user_model, "view_sessionrecord")
    response = reader.get(reverse("admin:gateway_live_sessions"))
    assert response.status_code == 200
    assert 'id="live-sessions"' in response.content.decode()
