"""The admin page listing this worker's live sessions."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from gateway.sessions.live import live_sessions, worker_label

LIVE_SESSIONS_PERMISSION = "indexing.view_sessionrecord"
"""The page shows what a session report shows (client, software, key, calls), live: the
same permission as the reports, whose overview links to it."""


def live_sessions_view(admin_site, request: HttpRequest) -> HttpResponse:
    """GET: the open sessions of the worker that answers this request.

    Raises:
        PermissionDenied: the user may not view session reports.
    """
    if not request.user.has_perm(LIVE_SESSIONS_PERMISSION):
        raise PermissionDenied
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
