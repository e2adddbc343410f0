"""`manage.py import_mcp_servers`: Claude/Cursor and VS Code files, all or nothing."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from gateway.models import Upstream

pytestmark = pytest.mark.django_db

CLAUDE_DESKTOP = {
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
        },
        "GitHub": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        },
        "linear": {"type": "sse", "url": "https://mcp.linear.app/sse"},
        "notion": {
            "type": "http",
            "url": "https://mcp.notion.com/mcp",
            "headers": {"Authorization": "Bearer ${NOTION_TOKEN}"},
        },
    }
}

VSCODE = {
    "inputs": [{"type": "promptString", "id": "perplexity-key", "password": True}],
    "servers": {
        "perplexity": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "server-perplexity-ask"],
            "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"},
        },
        "context7": {"type": "http", "url": "https://mcp.context7.com/mcp"},
    },
}


def run(path, *flags) -> str:
    out = StringIO()
    call_command("import_mcp_servers", str(path), *flags, stdout=out)
    return out.getvalue()


def write(tmp_path, content, name="config.json"):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
    return path


def test_a_claude_desktop_file_imports_every_server(tmp_path):
    output = run(write(tmp_path, CLAUDE_DESKTOP))
    assert sorted(Upstream.objects.values_list("name", flat=True)) == [
        "filesystem",
        "github",
        "linear",
        "notion",
    ]
    github = Upstream.objects.get(name="github")
    assert github.transport == "stdio" and github.command == "docker"
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    assert Upstream.objects.get(name="linear").transport == "sse"
    notion = Upstream.objects.get(name="notion")
    assert notion.transport == "http"
    assert notion.headers == {"Authorization": "Bearer ${NOTION_TOKEN}"}
    assert "created  github (stdio)" in output


def test_a_vscode_file_imports_with_inputs_as_environment_placeholders(tmp_path):
    run(write(tmp_path, VSCODE))
    perplexity = Upstream.objects.get(name="perplexity")
    assert perplexity.env == {"PERPLEXITY_API_KEY": "${PERPLEXITY_KEY}"}
    assert Upstream.objects.get(name="context7").url == "https://mcp.context7.com/mcp"


def test_vscode_user_settings_with_an_mcp_section_import(tmp_path):
    run(write(tmp_path, {"editor.fontSize": 13, "mcp": {"servers": VSCODE["servers"]}}))
    assert Upstream.objects.count() == 2


def test_existing_upstreams_are_kept_unless_update_is_given(tmp_path):
    path = write(tmp_path, CLAUDE_DESKTOP)
    run(path)
    Upstream.objects.filter(name="linear").update(notes="ours", url="https://old.example/sse")
    output = run(path)
    assert "skipped  linear (exists, kept as it is)" in output
    assert Upstream.objects.get(name="linear").url == "https://old.example/sse"
    run(path, "--update")
    linear = Upstream.objects.get(name="linear")
    assert linear.url == "https://mcp.linear.app/sse"
    assert linear.notes == "ours"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"mcpServers": {"a": {"command": "x" "y"}}}', r"config.json:1:\d+: not valid JSON"),
        ('{"mcpServers": {"a": {"command": "x", "disabled": "yes"}}}', "disabled: expected true"),
        ('{"mcpServers": {"a": {"command": "x", "timeout": -1}}}', "timeout: expected a positive"),
        ("[1, 2]", "expected a JSON object at the top level"),
        ('{"something": {}}', "no 'mcpServers'"),
        ('{"mcpServers": []}', "mcpServers: expected an object"),
        ('{"mcpServers": {"a": {"args": ["x"]}}}', "mcpServers.a.url: expected a non-empty string"),
        (
            '{"mcpServers": {"a": {"command": "x", "args": "y"}}}',
            "mcpServers.a.args: expected a list",
        ),
        ('{"mcpServers": {"a": {"command": "x", "args": ["y", 1]}}}', r"mcpServers.a.args\[1\]"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K": null}}}}', "mcpServers.a.env.K"),
        ('{"mcpServers": {"a": {"type": "carrier-pigeon", "url": "x"}}}', "unknown transport"),
        ('{"mcpServers": {"a": {"url": "ftp://files"}}}', "a: url: an HTTP upstream needs"),
        (
            '{"mcpServers": {"My Server": {"command": "x"}, "my-server": {"command": "y"}}}',
            "also used",
        ),
        ('{"mcpServers": {}}', "lists no servers"),
        ('{"mcpServers": ' * 5_000, "nested deeper than 200 levels"),
        ('{"mcpServers": {"a": {"command": "x", "args": ' + "[" * 3_000, "nested deeper"),
        ('// a comment\n{"mcpServers": ' * 5_000, "nested deeper than 200 levels"),
        ('{"mcpServers": {"a": {"command": "\\ud800", "args": ' + "[" * 3_000, "nested deeper"),
    ],
)
def test_a_broken_file_is_a_clear_error_that_imports_nothing(tmp_path, content, message):
    good_first = '{"mcpServers": {"aaa-good": {"command": "python"}, '
    path = write(tmp_path, content)
    with pytest.raises(CommandError, match=message):
        run(path)
    assert Upstream.objects.count() == 0
    if content.startswith('{"mcpServers": {"a"'):
        # The same mistake after a good server still imports nothing half-way.
        write(tmp_path, good_first + content[len('{"mcpServers": {') :])
        with pytest.raises(CommandError):
            run(path)
        assert Upstream.objects.count() == 0


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run(tmp_path / "absent.json")
