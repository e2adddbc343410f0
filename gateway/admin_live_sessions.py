"""The admin page listing this worker's live sessions."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from gateway.live_sessions import live_sessions, worker_label


def live_sessions_view(admin_site, request: HttpRequest) -> HttpResponse:
    """GET: the open sessions of the worker that answers this request."""
    return TemplateResponse(
        request,
        "admin/gateway/live_sessions.html",
        {
            **admin_site.each_context(request),
            "title": "Live sessions",
            "sessions": live_sessions(),
            "worker": worker_label(),
        },
    )
