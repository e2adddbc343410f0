"""The audit trail in the admin: read-only for everyone, filterable, exported as JSON lines."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.urls import path, reverse
from django.utils.html import format_html

from gateway.operations.audit.export import jsonl_response
from gateway.operations.audit.models import AuditEvent, Kind
from indexing.reports.models import SessionRecord

CALL_DETAILS = [
    "at", "kind", "client_name", "client_id", "member", "session_report", "upstream", "name",
    "outcome", "reason", "duration", "bytes_received", "bytes_delivered", "guardrails", "arguments",
]  # fmt: skip
CHANGE_DETAILS = [
    "at", "kind", "actor", "action", "object_type", "object_id", "name", "fields",
]  # fmt: skip


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Who called or changed what, when; nobody may add, change or delete an event here."""

    list_display = ["when", "kind", "who", "upstream", "what", "result", "duration_ms", "size"]
    list_display_links = ["when"]
    list_filter = ["at", "kind", "outcome", "upstream", "client_name", "member", "actor"]
    date_hierarchy = "at"
    search_fields = ["client_name", "member", "actor", "name", "upstream", "session"]
    list_per_page = 100
    show_full_result_count = False  # counting every event of a long trail is slow
    actions = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False

    readonly_fields = ["session_report"]

    def get_fields(self, request: HttpRequest, obj: AuditEvent | None = None) -> list[str]:
        return CHANGE_DETAILS if obj is not None and obj.kind == Kind.CHANGE else CALL_DETAILS

    @admin.display(description="who", ordering="client_name")
    def who(self, event: AuditEvent) -> str:
        if event.kind == Kind.CHANGE:
            return event.actor
        return f"{event.client_name} ({event.member})" if event.member else event.client_name

    @admin.display(description="what", ordering="name")
    def what(self, event: AuditEvent) -> str:
        if event.kind != Kind.CHANGE:
            return event.name
        text = f"{event.get_action_display()} {event.object_type} {event.name}"
        return f"{text}: {', '.join(event.fields)}" if event.fields else text

    @admin.display(description="session")
    def session_report(self, event: AuditEvent) -> str:
        record = SessionRecord.objects.filter(key=event.session).only("pk").first()
        if record is None:  # pruned, or not written yet
            return event.session
        url = reverse("admin:indexing_sessionrecord_report", args=[record.pk])
        return format_html('<a href="{}">{}</a>', url, event.session)

    @admin.display(description="time", ordering="at")
    def when(self, event: AuditEvent) -> str:
        return event.at.strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description="outcome", ordering="outcome")
    def result(self, event: AuditEvent) -> str:
        return f"{event.outcome}: {event.reason}" if event.reason else event.outcome

    @admin.display(description="duration", ordering="duration")
    def duration_ms(self, event: AuditEvent) -> str:
        return "" if event.kind == Kind.CHANGE else f"{event.duration * 1000:,.0f} ms"

    @admin.display(description="bytes received → delivered")
    def size(self, event: AuditEvent) -> str:
        if event.kind == Kind.CHANGE:
            return ""
        return f"{event.bytes_received:,} → {event.bytes_delivered:,}"

    def get_urls(self):
        export = self.admin_site.admin_view(self.export_view)
        return [
            path("export.jsonl", export, name="gateway_auditevent_export"),
            *super().get_urls(),
        ]

    def export_view(self, request: HttpRequest) -> HttpResponse:
        """The events the list shows with the same filters and search, as JSON lines."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            changelist = self.get_changelist_instance(request)
        except IncorrectLookupParameters:
            return HttpResponseBadRequest("The query string holds a filter the audit list lacks.")
        return jsonl_response(request, changelist.queryset.order_by("at", "id"))
