"""Admin of upstream OAuth: each HTTP upstream's OAuth settings (linked from its page) and
"Connections" (My connections, Connect, the callback, Disconnect)."""

from __future__ import annotations

from functools import partial

from django import forms
from django.contrib import admin
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from gateway.models import Transport, Upstream
from gateway.upstream_auth import views
from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth
from localrouter.change_audit import AuditedAdminMixin


class UpstreamAuthForm(forms.ModelForm):
    """The client secret is written, never shown: empty keeps what is stored."""

    client_secret = forms.CharField(
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again; leave empty to keep the stored one.",
    )
    clear_client_secret = forms.BooleanField(required=False, label="Remove the stored secret")

    class Meta:
        model = UpstreamAuth
        fields = ["upstream", "mode", "client_id", "client_secret", "clear_client_secret", "scopes"]

    def save(self, commit: bool = True):
        auth = super().save(commit=False)
        if self.cleaned_data.get("clear_client_secret"):
            auth.seal("client_secret", "")
        elif self.cleaned_data.get("client_secret"):
            auth.seal("client_secret", self.cleaned_data["client_secret"])
        if commit:
            auth.save()
        return auth


@admin.register(UpstreamAuth)
class UpstreamAuthAdmin(AuditedAdminMixin, admin.ModelAdmin):
    """An HTTP upstream's OAuth: who connects it, and the client credentials entered for it."""

    form = UpstreamAuthForm
    list_display = ["upstream", "mode", "client_id"]
    list_select_related = ["upstream"]

    def get_changeform_initial_data(self, request):
        return {"mode": GrantMode.MEMBER, **super().get_changeform_initial_data(request)}

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "upstream":
            kwargs["queryset"] = Upstream.objects.exclude(transport=Transport.STDIO)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Grant)
class GrantAdmin(AuditedAdminMixin, admin.ModelAdmin):
    """ "Connections": every staff member sees and manages their own."""

    def has_module_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def changelist_view(self, request, extra_context=None):
        return views.my_connections_view(self.admin_site, request)

    def get_urls(self):
        site = self.admin_site

        wrap = site.admin_view

        return [
            path(
                "connect/<int:upstream_id>/",
                wrap(partial(views.connect_view, site)),
                name="gateway_grant_connect",
            ),
            path(
                "callback/",
                wrap(require_GET(partial(views.callback_view, site))),
                name="gateway_grant_callback",
            ),
            path(
                "disconnect/<int:upstream_id>/",
                wrap(require_POST(partial(views.disconnect_view, site))),
                name="gateway_grant_disconnect",
            ),
            # Read by authorization servers: no login.
            path(
                "client-metadata.json",
                require_GET(views.client_metadata_view),
                name="gateway_grant_client_metadata",
            ),
            *super().get_urls(),
        ]
