"""The admin page "Connected applications": each member sees the OAuth applications they
connected and disconnects them; a superuser sees everyone's."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from oauth2_provider.models import RefreshToken

from clients.oauth.connections import connected_clients, connection_revoke
from localrouter.change_audit import admin_actor


def _rows(request: HttpRequest) -> list[dict]:
    rows = []
    for client in connected_clients(request.user).order_by("owner__username", "name"):
        tokens = RefreshToken.objects.filter(
            user=client.owner, application=client.oauth_application, revoked__isnull=True
        )
        rows.append(
            {
                "client": client,
                "application": client.oauth_application,
                "connected": tokens.exists(),
                "may_edit": request.user.has_perm("clients.change_client"),
            }
        )
    return rows


def connected_view(request: HttpRequest) -> HttpResponse:
    context = {
        **admin.site.each_context(request),
        "title": "Connected applications",
        "is_nav_sidebar_enabled": False,
        "rows": _rows(request),
        "everyone": request.user.is_superuser,
        "now": timezone.now(),
    }
    return TemplateResponse(request, "admin/clients/connected_applications.html", context)


def disconnect_view(request: HttpRequest, client_id: int) -> HttpResponse:
    client = get_object_or_404(connected_clients(request.user), pk=client_id)
    count = connection_revoke(client=client, actor=admin_actor(request))
    messages.success(
        request,
        f"{client.oauth_application.name or client.oauth_application.client_id} is disconnected: "
        f"{count} token(s) ended on every worker within a second.",
    )
    return HttpResponseRedirect(reverse("admin:clients_client_connected"))


def connected_urls(admin_site: admin.AdminSite) -> list:
    """URL patterns for the page, for ClientAdmin.get_urls (staff members only)."""
    return [
        path("connected/", admin_site.admin_view(connected_view), name="clients_client_connected"),
        path(
            "connected/<int:client_id>/disconnect/",
            admin_site.admin_view(require_POST(disconnect_view)),
            name="clients_client_disconnect",
        ),
    ]
