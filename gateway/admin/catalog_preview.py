"""The admin page previewing one client's effective catalog."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse

from clients.models import Client
from gateway.catalog.preview import catalog_preview
from gateway.models import Upstream


def catalog_preview_view(admin_site, request: HttpRequest, client_id: int) -> HttpResponse:
    """GET: what the client would be listed and what deferred, per this worker's listings."""
    client = get_object_or_404(Client, pk=client_id)
    if not request.user.has_perm("clients.view_client"):
        raise PermissionDenied
    enabled = list(
        Upstream.objects.filter(enabled=True).order_by("name").values_list("name", flat=True)
    )
    return TemplateResponse(
        request,
        "admin/gateway/catalog_preview.html",
        {
            **admin_site.each_context(request),
            "title": f"Catalog preview: {client.name}",
            "client": client,
            "preview": catalog_preview(client, enabled),
        },
    )
