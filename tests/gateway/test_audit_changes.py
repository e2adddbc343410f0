"""Every change to the set-up, through the admin or a command, leaves an audit event naming
who, what and which fields, and never a secret value."""

import json
from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import reverse

from clients.models import Client, GlobalSettings
from gateway.models import Upstream
from gateway.operations.audit.export import event_object
from gateway.operations.audit.models import AuditEvent
from localrouter.change_audit import AuditedAdminMixin
from tests.factories import UpstreamFactory, client_admin_form
from tests.gateway.test_admin_powers import change_form

pytestmark = pytest.mark.django_db
OLD_SECRET, NEW_SECRET = "OLD-SECRET-0123456789", "NEW-SECRET-9876543210"


def changes() -> list[dict]:
    """The change events as exported, oldest first."""
    return [
        event_object(row)
        for row in AuditEvent.objects.filter(kind="change").order_by("id").values()
    ]


def test_an_admin_edit_names_the_fields_changed_but_no_secret_value(staff, admin_user):
    upstream = UpstreamFactory(name="github", env={"API_KEY": OLD_SECRET})
    url = reverse("admin:gateway_upstream_change", args=[upstream.pk])
    form = change_form(upstream, env_text=f"API_KEY={NEW_SECRET}", notes="rotated")
    assert staff.post(url, form).status_code == 302
    [event] = changes()
    assert event["actor"] == admin_user.username
    assert (event["action"], event["object_type"], event["name"]) == (
        "changed",
        "upstream",
        "github",
    )
    assert event["object_id"] == str(upstream.pk) and event["upstream"] == "github"
    assert sorted(event["fields"]) == ["Environment", "Notes"]
    assert OLD_SECRET not in json.dumps(event) and NEW_SECRET not in json.dumps(event)


def test_adding_a_client_regenerating_its_token_and_deleting_it_are_each_recorded(staff):
    response = staff.post(reverse("admin:clients_client_add"), client_admin_form(name="ci-bot"))
    token = response.context["token"]
    client = Client.objects.get(name="ci-bot")
    regenerated = staff.post(reverse("admin:clients_client_regenerate", args=[client.pk]))
    new_token = regenerated.context["token"]
    staff.post(reverse("admin:clients_client_delete", args=[client.pk]), {"post": "yes"})
    assert not Client.objects.exists()
    events = changes()
    assert [(e["action"], e["object_type"], e["name"]) for e in events] == [
        ("added", "client", "ci-bot"),
        ("token_regenerated", "client", "ci-bot"),
        ("deleted", "client", "ci-bot"),
    ]
    assert {e["client_name"] for e in events} == {"ci-bot"}
    assert events[1]["fields"] == ["Token"]
    assert token not in json.dumps(events) and new_token not in json.dumps(events)


def test_a_bulk_delete_and_the_enable_action_record_one_event_per_upstream(staff):
    first, second = UpstreamFactory(name="one"), UpstreamFactory(name="two", enabled=False)
    changelist = reverse("admin:gateway_upstream_changelist")
    chosen = [str(first.pk), str(second.pk)]
    staff.post(changelist, {"action": "enable_upstreams", "_selected_action": chosen})
    staff.post(changelist, {"action": "delete_selected", "_selected_action": chosen, "post": "yes"})
    assert not Upstream.objects.exists()
    assert [(e["action"], e["name"], e["fields"]) for e in changes()] == [
        ("changed", "two", ["Enabled"]),
        ("deleted", "one", []),
        ("deleted", "two", []),
    ]


def test_a_global_settings_change_is_recorded(staff):
    row = GlobalSettings.load()
    url = reverse("admin:clients_globalsettings_change", args=[row.pk])
    assert staff.post(url, client_admin_form(response_threshold="32768")).status_code == 302
    [event] = changes()
    assert (event["action"], event["object_type"]) == ("changed", "global settings")
    assert event["fields"] == ["Response threshold (bytes)"]


def test_commands_record_who_ran_them(tmp_path, capsys):
    UpstreamFactory(name="time")
    config = tmp_path / "mcp.json"
    servers = {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "git": {"command": "git"}}
    config.write_text(json.dumps({"mcpServers": servers}))
    call_command("import_mcp_servers", str(config), "--update")
    call_command("create_client", "alice", "--set", "response_threshold=32768")
    call_command("revoke_client", "alice")
    call_command("regenerate_token", "alice", "--activate")
    token = capsys.readouterr().out.splitlines()[-1]
    events = changes()
    assert [(e["action"], e["name"], e["fields"]) for e in events] == [
        ("changed", "time", ["Command", "Args"]),
        ("added", "git", []),
        ("added", "alice", ["Response threshold (bytes)"]),
        ("revoked", "alice", ["Active"]),
        ("token_regenerated", "alice", ["Token", "Active"]),
    ]
    assert events[0]["actor"].endswith("(manage.py import_mcp_servers)")
    assert events[-1]["actor"].endswith("(manage.py regenerate_token)")
    assert token not in json.dumps(events)


def test_demo_clients_added_and_cleared_are_recorded():
    call_command("demo_data", "--sessions", "1", stdout=StringIO())
    call_command("demo_data", "--clear", "--sessions", "0", stdout=StringIO())
    events = changes()
    added = {e["name"] for e in events if e["action"] == "added"}
    deleted = {e["name"] for e in events if e["action"] == "deleted"}
    assert added and added == deleted
    assert {e["actor"].split(" ", 1)[1] for e in events} == {"(manage.py demo_data)"}


def test_a_dry_run_import_records_nothing(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"git": {"command": "git"}}}))
    call_command("import_mcp_servers", str(config), "--dry-run")
    assert changes() == []


def test_every_admin_of_the_set_up_reports_its_changes():
    audited = {
        model._meta.label
        for model, model_admin in admin.site._registry.items()
        if isinstance(model_admin, AuditedAdminMixin)
    }
    set_up = {
        model._meta.label
        for model in admin.site._registry
        if model._meta.app_label in ("gateway", "clients") and model is not AuditEvent
    }
    assert set_up <= audited, f"admins without AuditedAdminMixin: {set_up - audited}"
