"""Remote servers' OAuth clients in imported config files become the upstreams' credentials."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from gateway.models import Upstream
from gateway.upstream_auth.models import UpstreamAuth

pytestmark = pytest.mark.django_db

CONFIG = {
    "mcpServers": {
        # Cursor: static OAuth client under `auth`.
        "tracker": {
            "url": "https://mcp.tracker.example/mcp",
            "auth": {
                "CLIENT_ID": "tracker-client",
                "CLIENT_SECRET": "${env:TRACKER_SECRET}",
                "scopes": ["issues:read", "offline_access"],
            },
        },
        # Claude Code / Gemini CLI: `oauth`, scopes as a list or a string; extra keys unused.
        "wiki": {
            "type": "http",
            "url": "https://wiki.example/mcp",
            "oauth": {"clientId": "wiki-client", "callbackPort": 8080, "scopes": "read"},
        },
        "payments": {
            "httpUrl": "https://pay.example/mcp",
            "oauth": {"enabled": False, "clientId": "unused"},
        },
        "bare": {"type": "http", "url": "https://bare.example/mcp"},
        "local": {"command": "echo"},
    }
}


def run(tmp_path, config, *flags) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    out = StringIO()
    call_command("import_mcp_servers", str(path), *flags, stdout=out)
    return out.getvalue()


def test_oauth_clients_are_kept_with_the_secret_sealed(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACKER_SECRET", "s3cret-value-from-env")
    output = run(tmp_path, CONFIG)
    tracker = UpstreamAuth.objects.get(upstream__name="tracker")
    assert (tracker.mode, tracker.client_id) == ("member", "tracker-client")
    assert tracker.scopes == "issues:read offline_access"
    assert tracker.opened("client_secret") == "s3cret-value-from-env"
    assert "s3cret-value-from-env" not in tracker.client_secret_sealed
    assert "s3cret-value-from-env" not in output
    wiki = UpstreamAuth.objects.get(upstream__name="wiki")
    assert (wiki.mode, wiki.client_id, wiki.scopes) == ("member", "wiki-client", "read")
    assert "OAuth client 'tracker-client' kept (each member connects)" in output


def test_servers_without_an_oauth_client_get_none(tmp_path):
    output = run(tmp_path, CONFIG)
    assert not UpstreamAuth.objects.filter(upstream__name__in=["payments", "bare", "local"])
    assert Upstream.objects.get(name="payments").url == "https://pay.example/mcp"
    bare_line = next(line for line in output.splitlines() if " bare " in line)
    assert "if it answers 401 (OAuth), choose who connects it" in bare_line
    local_line = next(line for line in output.splitlines() if " local " in line)
    assert "OAuth" not in local_line


def test_an_unset_secret_variable_is_reported(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACKER_SECRET", raising=False)
    output = run(tmp_path, CONFIG)
    assert "its OAuth client needs TRACKER_SECRET set when importing" in output


def test_a_shared_grant_set_up_before_survives_an_update(tmp_path):
    run(tmp_path, CONFIG)
    UpstreamAuth.objects.filter(upstream__name="wiki").update(mode="shared")
    run(tmp_path, CONFIG, "--update")
    assert UpstreamAuth.objects.get(upstream__name="wiki").mode == "shared"


@pytest.mark.parametrize(
    ("oauth", "message"),
    [
        ({"auth": "oauth"}, "x.auth: expected an object"),
        ({"oauth": {"clientId": ""}}, "x.oauth.clientId: expected a non-empty string"),
        ({"oauth": {"clientId": "c", "scopes": [1]}}, "x.oauth.scopes[0]: expected a string"),
    ],
)
def test_a_malformed_oauth_client_imports_nothing(tmp_path, oauth, message):
    config = {
        "mcpServers": {
            "ok": {"url": "https://ok.example/mcp"},
            "x": {"url": "https://x.example/mcp", **oauth},
        }
    }
    with pytest.raises(CommandError, match=message.replace("[", r"\[").replace("]", r"\]")):
        run(tmp_path, config)
    assert not Upstream.objects.exists()


def test_a_dry_run_stores_no_oauth_client(tmp_path):
    run(tmp_path, CONFIG, "--dry-run")
    assert not UpstreamAuth.objects.exists()
