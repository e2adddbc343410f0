"""Admin for upstream servers."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.urls import path
from django.utils.html import format_html
from django.utils.timezone import localtime
from django.views.decorators.http import require_POST

from gateway.admin.actions import disable_upstreams, enable_upstreams
from gateway.admin.catalog_preview import catalog_preview_view
from gateway.admin.forms import UpstreamAdminForm
from gateway.admin.import_config import import_view
from gateway.admin.live_sessions import live_sessions_view
from gateway.admin.powers import UpstreamPowersMixin
from gateway.admin.test_connection import connection_check_view
from gateway.models import Upstream
from gateway.operations.audit.admin import AuditEventAdmin  # noqa: F401  (registers the audit trail)
from gateway.upstream_auth.admin import UpstreamAuthAdmin  # noqa: F401  (registers OAuth)
from gateway.upstream_auth.connections import oauth_context
from gateway.upstream_config.status import health_badge, upstream_status
from localrouter.admin_fields import ReadableFieldsMixin
from localrouter.change_audit import AuditedAdminMixin
from localrouter.url_masking import mask_url

TARGET_CHARS = 120
"""A longer command line or URL is cut in the list (the whole one is its tooltip)."""


@admin.register(Upstream)
class UpstreamAdmin(AuditedAdminMixin, ReadableFieldsMixin, UpstreamPowersMixin, admin.ModelAdmin):
    form = UpstreamAdminForm
    # Health, not the enabled flag: an enabled upstream may well be failing.
    list_display = ["name", "transport", "target", "health", "timeout", "updated"]
    list_filter = ["transport", "enabled"]
    search_fields = ["name", "command", "url", "notes"]
    actions = [enable_upstreams, disable_upstreams]
    fieldsets = [
        (None, {"fields": ["name", "transport", "enabled", "timeout_seconds", "notes"]}),
        (
            "Local process (stdio)",
            {"fields": ["command", "args", "env_text", "cwd"], "classes": ["transport-stdio"]},
        ),
        (
            "HTTP (Streamable HTTP or legacy SSE)",
            {"fields": ["url", "headers_text"], "classes": ["transport-http"]},
        ),
    ]

    @admin.display(description="command or URL")
    def target(self, upstream: Upstream) -> str:
        if upstream.transport == "stdio":
            text = " ".join([upstream.command, *upstream.args])
        else:
            text = mask_url(upstream.url)
        shown = text if len(text) <= TARGET_CHARS else text[: TARGET_CHARS - 1] + "…"
        return format_html('<span title="{}">{}</span>', text, shown)

    @admin.display(description="health in this worker")
    def health(self, upstream: Upstream) -> str:
        badge = health_badge(upstream)
        return format_html(
            '<span class="health health-{}" title="{}">{}</span>',
            badge.level,
            badge.detail or badge.text,
            badge.text,
        )

    @admin.display(description="timeout", ordering="timeout_seconds")
    def timeout(self, upstream: Upstream) -> str:
        return f"{upstream.timeout_seconds:g} s"

    @admin.display(description="updated", ordering="updated_at")
    def updated(self, upstream: Upstream) -> str:
        return f"{localtime(upstream.updated_at):%Y-%m-%d %H:%M}"

    def get_urls(self):
        check = self.admin_site.admin_view(require_POST(self.test_connection_view))
        importer = self.admin_site.admin_view(self.import_view)
        live = self.admin_site.admin_view(
            lambda request: live_sessions_view(self.admin_site, request)
        )
        preview = self.admin_site.admin_view(
            lambda request, client_id: catalog_preview_view(self.admin_site, request, client_id)
        )
        return [
            path("import/", importer, name="gateway_upstream_import"),
            path("catalog-preview/<int:client_id>/", preview, name="gateway_catalog_preview"),
            path("live-sessions/", live, name="gateway_live_sessions"),
            path("<int:upstream_id>/test-connection/", check, name="gateway_upstream_test"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        upstream = self.get_object(request, object_id)
        status = upstream_status(upstream.name) if upstream is not None else None
        oauth = oauth_context(upstream) if upstream is not None else {}
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "status": status, **oauth}
        )

    def import_view(self, request):
        if not self.has_add_permission(request):
            raise PermissionDenied
        return import_view(self, request)

    def test_connection_view(self, request, upstream_id: int):
        return connection_check_view(self, request, upstream_id)
