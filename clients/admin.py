"""Admin for clients (token shown once) and the global settings singleton."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from clients.admin_connected import connected_urls
from clients.admin_token import token_page
from clients.context_settings import CONTEXT, GUARDRAILS, LIMITS, SETTINGS, resolve_settings
from clients.models import Client, GlobalSettings
from clients.services import assign_new_token, client_regenerate_token
from localrouter.admin_fields import ReadableFieldsMixin
from localrouter.change_audit import AuditedAdminMixin, admin_actor

OVERRIDE_FIELDS = [spec.name for spec in SETTINGS if spec.group == CONTEXT]
LIMIT_FIELDS = [spec.name for spec in SETTINGS if spec.group == LIMITS]
GUARDRAIL_FIELDS = [spec.name for spec in SETTINGS if spec.group == GUARDRAILS]
GUARDRAILS_HELP = (
    "What the gateway keeps from the model (docs/guardrails.md). Tool policy: allow: listed "
    "and called; ask: listed, and each call waits for the person at the client to accept it; "
    "deny: not listed, calls refused. The first matching line decides; this client's lines are "
    "read before the global settings' lines; other tools are allowed. Other empty fields "
    "inherit: client override → global settings → built-in default."
)
LIMITS_HELP = (
    "Calls over a limit are refused with an error naming the limit and when to retry; "
    "0 is unlimited. Empty fields inherit: client override → global settings → built-in "
    "default (unlimited)."
)


def effective_settings_table(client: Client | None, group: str = CONTEXT) -> str:
    """An HTML table of each effective setting of a group and where it comes from."""
    effective = resolve_settings(client, GlobalSettings.load())
    rows = format_html_join(
        "",
        "<tr><th>{}</th><td>{}</td></tr>",
        ((spec.label, str(effective[spec.name])) for spec in SETTINGS if spec.group == group),
    )
    return format_html('<table class="effective-settings">{}</table>', rows)


@admin.register(Client)
class ClientAdmin(AuditedAdminMixin, ReadableFieldsMixin, admin.ModelAdmin):
    list_display = [
        "name",
        "masked_token",
        "is_active",
        "owner",
        "upstream_summary",
        "last_seen_at",
        "created_at",
    ]
    list_filter = ["is_active", "all_upstreams", "owner"]
    search_fields = ["name", "notes", "token_prefix"]
    filter_horizontal = ["upstreams"]
    readonly_fields = [
        "masked_token",
        "created_at",
        "last_seen_at",
        "oauth_application",
        "effective_settings",
        "effective_limits",
        "effective_guardrails",
    ]
    fieldsets = [
        (None, {"fields": ["name", "owner", "is_active", "notes"]}),
        (
            "Token",
            {"fields": ["masked_token", "oauth_application", "created_at", "last_seen_at"]},
        ),
        (
            "Upstreams and tools",
            {"fields": ["all_upstreams", "upstreams"]},
        ),
        (
            "Guardrails",
            {"fields": [*GUARDRAIL_FIELDS, "effective_guardrails"], "description": GUARDRAILS_HELP},
        ),
        (
            "Context management overrides",
            {
                "fields": [*OVERRIDE_FIELDS, "effective_settings"],
                "description": "Empty fields inherit: client override → global settings → "
                "built-in default.",
            },
        ),
        ("Limits", {"fields": [*LIMIT_FIELDS, "effective_limits"], "description": LIMITS_HELP}),
    ]

    @admin.display(description="token")
    def masked_token(self, client: Client) -> str:
        return client.masked_token

    @admin.display(description="upstreams")
    def upstream_summary(self, client: Client) -> str:
        if client.all_upstreams:
            return "all"
        return ", ".join(upstream.name for upstream in client.upstreams.all()) or "none"

    @admin.display(description="effective values")
    def effective_settings(self, client: Client | None) -> str:
        return effective_settings_table(client if client and client.pk else None)

    @admin.display(description="effective limits")
    def effective_limits(self, client: Client | None) -> str:
        return effective_settings_table(client if client and client.pk else None, LIMITS)

    @admin.display(description="effective guardrails")
    def effective_guardrails(self, client: Client | None) -> str:
        return effective_settings_table(client if client and client.pk else None, GUARDRAILS)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).prefetch_related("upstreams")

    def save_model(self, request: HttpRequest, client: Client, form, change: bool) -> None:
        if not change:
            client.issued_token = assign_new_token(client)
        super().save_model(request, client, form, change)

    def response_add(self, request: HttpRequest, client: Client, post_url_continue=None):
        return token_page(self, request, client, client.issued_token, "created")

    def get_urls(self):
        regenerate = self.admin_site.admin_view(require_POST(self.regenerate_token_view))
        return [
            path("<int:client_id>/regenerate-token/", regenerate, name="clients_client_regenerate"),
            *connected_urls(self.admin_site),
            *super().get_urls(),
        ]

    def regenerate_token_view(self, request: HttpRequest, client_id: int) -> HttpResponse:
        client = get_object_or_404(Client, pk=client_id)
        if not self.has_change_permission(request, client):
            return HttpResponseRedirect(reverse("admin:index"))
        token = client_regenerate_token(client=client, actor=admin_actor(request))
        return token_page(
            self, request, client, token, "regenerated (the old token no longer works)"
        )


@admin.register(GlobalSettings)
class GlobalSettingsAdmin(AuditedAdminMixin, ReadableFieldsMixin, admin.ModelAdmin):
    fieldsets = [
        (
            "Team-wide context management overrides",
            {
                "fields": [*OVERRIDE_FIELDS, "effective_defaults"],
                "description": "Empty fields use the built-in default. Clients inherit these "
                "unless they override a field themselves.",
            },
        ),
        (
            "Team-wide limits",
            {
                "fields": [*LIMIT_FIELDS, "effective_limits"],
                "description": "Each client counts against these values on its own; 0 is "
                "unlimited. Empty fields use the built-in default (unlimited). Clients inherit "
                "these unless they override a field themselves.",
            },
        ),
        (
            "Team-wide guardrails",
            {
                "fields": [*GUARDRAIL_FIELDS, "effective_guardrails"],
                "description": "Clients inherit these unless they override a field "
                "themselves; empty fields use the built-in default. Tool policy: every client "
                "reads these lines after its own; other tools are allowed. allow: listed and "
                "called; ask: each call waits for the person at the client to accept it; deny: "
                "not listed, calls refused.",
            },
        ),
    ]
    readonly_fields = ["effective_defaults", "effective_limits", "effective_guardrails"]

    @admin.display(description="effective values")
    def effective_defaults(self, row: GlobalSettings) -> str:
        return effective_settings_table(None)

    @admin.display(description="effective limits")
    def effective_limits(self, row: GlobalSettings) -> str:
        return effective_settings_table(None, LIMITS)

    @admin.display(description="effective guardrails")
    def effective_guardrails(self, row: GlobalSettings) -> str:
        return effective_settings_table(None, GUARDRAILS)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context=None) -> HttpResponse:
        row = GlobalSettings.load()
        return HttpResponseRedirect(reverse("admin:clients_globalsettings_change", args=[row.pk]))
