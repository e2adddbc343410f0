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
