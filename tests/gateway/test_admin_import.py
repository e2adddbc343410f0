"""The admin's "Import MCP servers" page: upload or paste, all or nothing, staff only."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from gateway.models import Upstream

pytestmark = pytest.mark.django_db
URL_NAME = "admin:gateway_upstream_import"
CONFIG = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "notion": {"type": "http", "url": "https://mcp.notion.com/mcp"},
    }
}


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return client


def test_an_uploaded_file_imports_its_servers_and_says_so(staff):
    upload = SimpleUploadedFile("claude_desktop_config.json", json.dumps(CONFIG).encode())
    response = staff.post(reverse(URL_NAME), {"config_file": upload}, follow=True)
    assert sorted(Upstream.objects.values_list("name", flat=True)) == ["notion", "time"]
    page = response.content.decode()
    assert "Created  time (stdio)" in page and "Created  notion (http)" in page


def test_pasted_text_imports_and_existing_upstreams_need_update(staff):
    Upstream.objects.create(name="time", command="old")
    staff.post(reverse(URL_NAME), {"config_text": json.dumps(CONFIG)})
    assert Upstream.objects.get(name="time").command == "old"
    staff.post(reverse(URL_NAME), {"config_text": json.dumps(CONFIG), "update": "on"})
    assert Upstream.objects.get(name="time").command == "uvx"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{broken", "pasted text:1:2: not valid JSON"),
        ('{"mcpServers": {"a": {"type": "http", "url": "ftp://x"}}}', "an HTTP upstream needs"),
        ("", "choose a file or paste its contents"),
    ],
)
def test_a_broken_file_shows_the_error_and_imports_nothing(staff, text, message):
    response = staff.post(reverse(URL_NAME), {"config_text": text})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Upstream.objects.exists()


def test_the_page_is_for_staff_only(client, django_user_model):
    assert client.get(reverse(URL_NAME)).status_code == 302
    user = django_user_model.objects.create_user("mallory", password="pw-123456789")
    client.force_login(user)
    assert "/admin/login/" in client.get(reverse(URL_NAME)).url


def test_preview_only_lists_what_would_happen_and_saves_nothing(staff, monkeypatch):
    monkeypatch.delenv("NOTION_TOKEN", raising=False)
    config = (
        '{"mcpServers": {"notion": {"url": "https://mcp.notion.com/mcp", // JSONC\n'
        '"headers": {"Authorization": "Bearer ${env:NOTION_TOKEN}"},},}}'
    )
    response = staff.post(reverse(URL_NAME), {"config_text": config, "dry_run": "on"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Preview: nothing was saved" in page
    assert (
        "would create notion (http); needs NOTION_TOKEN in the gateway&#x27;s environment" in page
    )
    assert not Upstream.objects.exists()


def test_a_skipped_upstream_is_explained_without_command_line_flags(staff):
    Upstream.objects.create(name="time", command="old")
    response = staff.post(reverse(URL_NAME), {"config_text": json.dumps(CONFIG)}, follow=True)
    page = response.content.decode()
    assert "Skipped  time (exists, kept as it is)" in page
    assert "--update" not in page


def test_a_pasted_env_file_reference_reads_no_file_on_the_server(staff):
    config = {"mcpServers": {"a": {"command": "x", "envFile": "/etc/passwd"}}}
    response = staff.post(reverse(URL_NAME), {"config_text": json.dumps(config)}, follow=True)
    assert Upstream.objects.get(name="a").env == {}
    assert "envFile /etc/passwd not read" in response.content.decode()
