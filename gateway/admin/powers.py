"""Who may do what to upstreams in the admin.

An upstream's command, args, env, URL and headers decide what runs as the server's user
and where its secrets go, so only superusers may set them: create or import upstreams,
change those fields, or run *Test connection*. Other staff with upstream permissions see
every upstream with its secrets masked and may change only the harmless fields.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from gateway.admin.forms import masked_lines
from gateway.models import Upstream
from localrouter.url_masking import mask_url

HARMLESS_FIELDS = ("enabled", "timeout_seconds", "notes")
MASKED_STAND_INS = {"url": "masked_url", "env_text": "masked_env", "headers_text": "masked_headers"}
"""Form fields that show secrets, and the read-only displays that replace them."""
TRANSPORT_SECTIONS = {"stdio": "transport-stdio", "http": "transport-http"}
"""The fieldset class of each kind of transport's settings (SSE uses the HTTP ones)."""


def may_run_upstreams(user) -> bool:
    """Whether `user` may decide what an upstream runs or reaches (superusers only)."""
    return user.is_active and user.is_superuser


class UpstreamPowersMixin:
    """A `ModelAdmin` mixin that enforces the rule above on the add and change pages."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return may_run_upstreams(request.user) and super().has_add_permission(request)

    def get_fieldsets(self, request: HttpRequest, obj: Upstream | None = None):
        fieldsets = super().get_fieldsets(request, obj)
        if may_run_upstreams(request.user):
            return fieldsets
        # The transport cannot be changed here, so the other transport's section is noise.
        unused = TRANSPORT_SECTIONS["http" if obj is None or obj.transport == "stdio" else "stdio"]
        return [
            (title, {**options, "fields": [MASKED_STAND_INS.get(f, f) for f in options["fields"]]})
            for title, options in fieldsets
            if unused not in options.get("classes", ())
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Upstream | None = None):
        readonly = super().get_readonly_fields(request, obj)
        if may_run_upstreams(request.user):
            return readonly
        shown = [f for _, options in self.get_fieldsets(request, obj) for f in options["fields"]]
        # The real env and headers fields stay out of the form, or saving would blank them.
        return [
            *readonly,
            *(f for f in shown if f not in HARMLESS_FIELDS),
            "env_text",
            "headers_text",
        ]

    def render_change_form(self, request: HttpRequest, context: dict, *args, **kwargs):
        context["may_run_upstreams"] = may_run_upstreams(request.user)
        return super().render_change_form(request, context, *args, **kwargs)

    def get_search_fields(self, request: HttpRequest):
        fields = super().get_search_fields(request)
        if may_run_upstreams(request.user):
            return fields
        # Searching a URL's text would reveal it piece by piece.
        return [f for f in fields if f not in MASKED_STAND_INS]

    @admin.display(description="URL")
    def masked_url(self, upstream: Upstream) -> str:
        return mask_url(upstream.url)

    @admin.display(description="environment")
    def masked_env(self, upstream: Upstream) -> str:
        return format_html("<pre>{}</pre>", masked_lines(upstream.env or {}, separator="="))

    @admin.display(description="headers")
    def masked_headers(self, upstream: Upstream) -> str:
        return format_html("<pre>{}</pre>", masked_lines(upstream.headers or {}, separator=": "))
