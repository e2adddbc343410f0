"""The Connect panel's stdio snippets use absolute paths, so they work pasted anywhere."""

import html
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def snippet(page: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}">(.*?)</pre>', page, re.DOTALL)
    assert match, f"no #{element_id} on the page"
    return html.unescape(match.group(1))


def test_stdio_snippets_name_the_interpreter_and_manage_py_absolutely(client, admin_user):
    client.force_login(admin_user)
    alice = ClientFactory(name="alice")
    page = client.get(reverse("admin:clients_client_change", args=[alice.pk])).content.decode()
    desktop = json.loads(snippet(page, "snippet-claude-desktop"))["mcpServers"]["localrouter"]
    assert desktop == {
        "command": sys.executable,
        "args": [str(ROOT / "manage.py"), "mcp_stdio"],
        "env": {"LOCALROUTER_TOKEN": "<your token>"},
    }
    assert Path(desktop["command"]).is_absolute()
    argv = [sys.executable, str(ROOT / "manage.py"), "mcp_stdio"]
    assert snippet(page, "snippet-stdio") == shlex.join(argv) + " --token <your token>"
    assert "~/.config/Claude/claude_desktop_config.json" in page
    assert "%APPDATA%\\Claude\\claude_desktop_config.json" in page
