"""The audit trail is append-only: read in the admin by those allowed, exported as JSON lines
with the list's filters, and deleted only by pruning past the retention period."""

import json
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from gateway.operations.audit.models import AppendOnlyError, AuditEvent
from indexing.reports.models import SessionRecord
from tests.gateway.test_admin_powers import staff_with

pytestmark = pytest.mark.django_db
LIST = "admin:gateway_auditevent_changelist"
EXPORT = "admin:gateway_auditevent_export"


def call_event(client: str = "alice", at: datetime | None = None, **fields) -> AuditEvent:
    return AuditEvent.objects.create(
        at=at or timezone.now(),
        kind=fields.pop("kind", "tool"),
        client_id=1,
        client_name=client,
        session="s1",
        upstream=fields.pop("upstream", "echo"),
        name=fields.pop("name", "echo"),
        outcome=fields.pop("outcome", "ok"),
        duration=0.012,
        bytes_received=10,
        bytes_delivered=10,
        **fields,
    )


@pytest.fixture
def viewer(client, django_user_model):
    """Staff with the audit trail's view permission and nothing else."""
    return staff_with(client, django_user_model, "view_auditevent")


def test_nobody_may_add_change_or_delete_an_event_through_the_admin(staff):
    event = call_event()
    change = reverse("admin:gateway_auditevent_change", args=[event.pk])
    assert staff.get(reverse("admin:gateway_auditevent_add")).status_code == 403
    page = staff.get(change)  # the superuser gets the read-only view
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert staff.post(change, {"name": "forged", "outcome": "ok"}).status_code == 403
    delete = reverse("admin:gateway_auditevent_delete", args=[event.pk])
    assert staff.post(delete, {"post": "yes"}).status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [str(event.pk)], "post": "yes"}
    staff.post(reverse(LIST), bulk)
    assert AuditEvent.objects.get().name == "echo"


def test_a_calls_page_links_to_its_sessions_report(viewer):
    now = timezone.now()
    record = SessionRecord.objects.create(
        key="s1", client_label="alice", started_at=now, last_activity_at=now
    )
    page = viewer.get(reverse("admin:gateway_auditevent_change", args=[call_event().pk]))
    report = reverse("admin:indexing_sessionrecord_report", args=[record.pk])
    assert f'<a href="{report}">s1</a>' in page.content.decode()


def test_the_model_refuses_to_change_or_delete_a_saved_event():
    event = call_event()
    event.name = "forged"
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    with pytest.raises(AppendOnlyError):
        AuditEvent.objects.update(name="forged")
    with pytest.raises(AppendOnlyError):
        AuditEvent.objects.all().delete()
    assert AuditEvent.objects.get().name == "echo"


def test_only_superusers_and_staff_with_the_view_permission_see_it(client, django_user_model):
    call_event()
    others = staff_with(client, django_user_model, "view_upstream")
    assert others.get(reverse(LIST)).status_code == 403
    assert others.get(reverse(EXPORT)).status_code == 403
    user = django_user_model.objects.get(username="operator")
    user.user_permissions.add(Permission.objects.get(codename="view_auditevent"))
    assert client.get(reverse(LIST)).status_code == 200
    assert client.get(reverse(EXPORT)).status_code == 200
    codenames = set(
        Permission.objects.filter(content_type__model="auditevent").values_list(
            "codename", flat=True
        )
    )
    assert codenames == {"view_auditevent"}


def test_the_list_filters_by_client_upstream_kind_outcome_and_date(viewer):
    call_event("alice", upstream="github", outcome="error")
    call_event("bob", upstream="jira")
    call_event("alice", at=timezone.now() - timedelta(days=40), name="old_tool")
    page = viewer.get(reverse(LIST), {"client_name": "alice", "outcome": "error"})
    rows = page.context["cl"].result_list
    assert [(e.client_name, e.upstream) for e in rows] == [("alice", "github")]
    week = viewer.get(reverse(LIST), {"at__gte": str(timezone.now() - timedelta(days=7))})
    assert "old_tool" not in {e.name for e in week.context["cl"].result_list}
    assert 'id="export-audit"' in week.content.decode()


def lines(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_the_export_gives_one_json_object_per_line_with_the_lists_filters(viewer):
    first = call_event("alice", upstream="github")
    call_event("bob", upstream="jira")
    second = call_event(
        "alice",
        upstream="jira",
        outcome="refused",
        reason="calls_per_minute",
        guardrails={"masked:jwt": 2},
    )
    response = viewer.get(reverse(EXPORT), {"client_name": "alice"})
    assert response["Content-Type"].startswith("application/jsonl")
    assert response["Content-Disposition"].startswith('attachment; filename="audit-')
    exported = lines(response)
    assert [row["id"] for row in exported] == [first.pk, second.pk]  # oldest first
    assert exported[1] == {
        "id": second.pk,
        "at": second.at.isoformat(),
        "kind": "tool",
        "client_id": 1,
        "client_name": "alice",
        "member": "",
        "session": "s1",
        "upstream": "jira",
        "name": "echo",
        "outcome": "refused",
        "reason": "calls_per_minute",
        "duration": 0.012,
        "bytes_received": 10,
        "bytes_delivered": 10,
        "guardrails": {"masked:jwt": 2},
    }
    searched = lines(viewer.get(reverse(EXPORT), {"q": "jira", "outcome": "refused"}))
    assert [row["id"] for row in searched] == [second.pk]
    assert viewer.get(reverse(EXPORT), {"no_such_field": "x"}).status_code == 400


def test_export_audit_prints_json_lines_since_a_date_for_one_client():
    call_event("alice", at=datetime(2026, 11, 30, 23, 0, tzinfo=UTC), name="before")
    call_event("alice", at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC), name="after")
    call_event("bob", at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC), name="other")
    out = StringIO()
    call_command("export_audit", "--since", "2026-12-01", "--client", "alice", stdout=out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(row["client_name"], row["name"]) for row in rows] == [("alice", "after")]


def test_export_audit_names_a_bad_date():
    with pytest.raises(Exception, match="--since 'yesterday'"):
        call_command("export_audit", "--since", "yesterday")


def test_pruning_removes_only_events_past_the_retention_period(settings):
    settings.AUDIT_RETENTION_DAYS = 90
    now = timezone.now()
    call_event(at=now - timedelta(days=91), name="old")
    call_event(at=now - timedelta(days=89), name="recent")
    out = StringIO()
    call_command("prune_audit", stdout=out)
    assert "Deleted 1 audit event(s) older than 90 day(s)." in out.getvalue()
    assert list(AuditEvent.objects.values_list("name", flat=True)) == ["recent"]
    call_command("prune_audit", "--days", "88", stdout=out)
    assert not AuditEvent.objects.exists()
