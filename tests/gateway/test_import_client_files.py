"""Each client's real config file imports with every field it has."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from gateway.models import Upstream

pytestmark = pytest.mark.django_db
CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "client_configs"
UNSET = ("GITHUB_TOKEN", "API_KEY", "API_BASE_URL", "CONFIG_PATH", "BRAVE_API_KEY", "NOTES_TOKEN")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)


def run(path: Path, *flags: str) -> str:
    out = StringIO()
    call_command("import_mcp_servers", str(path), *flags, stdout=out)
    return out.getvalue()


def upstream(name: str) -> Upstream:
    return Upstream.objects.get(name=name)


def test_claude_desktop_imports_and_reports_the_unset_token():
    output = run(CONFIGS / "claude_desktop_config.json")
    assert sorted(Upstream.objects.values_list("name", flat=True)) == [
        "filesystem",
        "github",
        "sqlite",
    ]
    assert upstream("github").env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}
    assert "created  github (stdio); needs GITHUB_TOKEN in the gateway's environment" in output
    assert "created  filesystem (stdio)\n" in output


def test_claude_code_keeps_defaults_and_only_reports_what_has_none():
    output = run(CONFIGS / "claude_code.mcp.json")
    api = upstream("api-server")
    assert api.transport == "http"
    assert api.url == "${API_BASE_URL:-https://api.example.com}/mcp"
    assert api.headers == {"Authorization": "Bearer ${API_KEY}"}
    assert upstream("sentry").transport == "sse"
    assert upstream("shared-server").args == ["--config", "${CONFIG_PATH:-/etc/shared/config.json}"]
    assert "api-server (http); needs API_KEY in" in output
    assert "shared-server (stdio)\n" in output


def test_claude_code_user_file_reads_every_project_once():
    run(CONFIGS / "claude.json")
    assert sorted(Upstream.objects.values_list("name", flat=True)) == ["postgres", "time"]
    assert upstream("postgres").args[-1] == "${SHOP_DATABASE_URL}"


def test_cursor_converts_env_placeholders_reads_env_files_and_spots_sse():
    output = run(CONFIGS / "cursor_mcp.json")
    assert upstream("brave-search").env == {"BRAVE_API_KEY": "${BRAVE_API_KEY}"}
    assert upstream("linear").env == {
        "LINEAR_API_KEY": "lin_api_0123456789",
        "LINEAR_TEAM": "Core team",
    }
    assert upstream("remote-notes").headers == {"Authorization": "Bearer ${NOTES_TOKEN}"}
    assert upstream("remote-notes").transport == "http"
    assert upstream("legacy-events").transport == "sse"
    assert "lin_api_0123456789" not in output


def test_vscode_jsonc_with_inputs_and_workspace_folder(tmp_path):
    vscode = tmp_path / "project" / ".vscode"
    vscode.mkdir(parents=True)
    shutil.copy(CONFIGS / "vscode_mcp.json", vscode / "mcp.json")
    (tmp_path / "project" / ".env").write_text("FETCH_USER_AGENT=LocalRouter\n")
    output = run(vscode / "mcp.json")
    assert upstream("perplexity").env == {"PERPLEXITY_API_KEY": "${PERPLEXITY_KEY}"}
    assert "perplexity (stdio); needs PERPLEXITY_KEY in" in output
    assert upstream("fetch").env == {"FETCH_USER_AGENT": "LocalRouter"}
    memory = upstream("memory")
    assert memory.env == {"MEMORY_FILE_PATH": f"{tmp_path / 'project'}/memory.json"}
    assert upstream("github").url == "https://api.githubcopilot.com/mcp/"


def test_windsurf_server_url_and_env_placeholders():
    run(CONFIGS / "windsurf_mcp_config.json")
    assert upstream("figma").url == "https://figma.example.com/mcp"
    assert upstream("figma").headers == {"X-Figma-Token": "${FIGMA_TOKEN}"}
    assert upstream("github").env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}


def test_cline_disabled_timeout_and_auto_approve():
    output = run(CONFIGS / "cline_mcp_settings.json")
    weather, puppeteer, docs = upstream("weather"), upstream("puppeteer"), upstream("remote-docs")
    assert (weather.enabled, weather.timeout_seconds) == (True, 120)
    assert (puppeteer.enabled, puppeteer.timeout_seconds) == (False, 60)
    assert (docs.transport, docs.timeout_seconds) == ("http", 30)
    assert "created  puppeteer (stdio, disabled); autoApprove not used" in output


def test_dry_run_reports_everything_and_saves_nothing():
    output = run(CONFIGS / "claude_desktop_config.json", "--dry-run")
    assert "would create github (stdio); needs GITHUB_TOKEN" in output
    assert "created" not in output
    assert output.rstrip().endswith("Preview only (--dry-run): nothing was saved.")
    assert not Upstream.objects.exists()


def test_a_set_variable_is_not_reported(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_example")
    output = run(CONFIGS / "claude_desktop_config.json")
    assert "needs" not in output
