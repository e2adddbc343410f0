"""The admin pages of upstream OAuth: My connections, Connect (confirm, then off to the
authorization server), the callback, Disconnect, and the Client ID Metadata Document."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from gateway.models import Upstream
from gateway.upstream_auth.connections import connection_rows, may_connect
from gateway.upstream_auth.disconnect import disconnect
from gateway.upstream_auth.discovery import DiscoveryError
from gateway.upstream_auth.flow import (
    AuthorizationFailed,
    complete_authorization,
    start_authorization,
)
from gateway.upstream_auth.machine import connect_machine
from gateway.upstream_auth.models import Grant, GrantMode, UpstreamAuth
from gateway.upstream_auth.registration import metadata_document, metadata_document_url
from localrouter.change_audit import admin_actor, record_change
from localrouter.public_url import absolute_url

logger = logging.getLogger(__name__)
CALLBACK = "admin:gateway_grant_callback"
MY_CONNECTIONS = "admin:gateway_grant_changelist"


def callback_url(request: HttpRequest) -> str:
    return absolute_url(reverse(CALLBACK), request)


def my_connections_view(admin_site, request: HttpRequest) -> HttpResponse:
    """GET: the OAuth upstreams and the user's grant (or the team's) on each."""
    return TemplateResponse(
        request,
        "admin/gateway/grant/my_connections.html",
        {
            **admin_site.each_context(request),
            "title": "My connections",
            "rows": connection_rows(request.user),
        },
    )


def connect_view(admin_site, request: HttpRequest, upstream_id: int) -> HttpResponse:
    """GET: a page with one Connect button (links in tool errors land here). POST: a page that
    sends the browser on to the authorization server (a machine grant is fetched at once).

    Raises:
        Http404: the upstream has no OAuth.
        PermissionDenied: a team grant and the user is no superuser.
    """
    auth = get_object_or_404(
        UpstreamAuth.objects.select_related("upstream").exclude(mode=GrantMode.NONE),
        upstream_id=upstream_id,
    )
    if not may_connect(request.user, auth.mode):
        raise PermissionDenied
    if request.method != "POST":
        return TemplateResponse(
            request,
            "admin/gateway/grant/connect.html",
            {**admin_site.each_context(request), "title": f"Connect {auth.upstream}", "auth": auth},
        )
    try:
        if auth.mode == GrantMode.MACHINE:
            grant = async_to_sync(connect_machine)(auth, auth.upstream.url, request.user)
            record_change(actor=admin_actor(request), action="added", obj=grant)
            messages.success(request, f"Connected {auth.upstream} with client credentials.")
            return HttpResponseRedirect(reverse(MY_CONNECTIONS))
        target = async_to_sync(start_authorization)(
            user=request.user, upstream=auth.upstream, auth=auth, redirect_uri=callback_url(request)
        )
    except DiscoveryError as error:
        messages.error(request, f"Could not connect {auth.upstream}: {error}")
        return HttpResponseRedirect(reverse(MY_CONNECTIONS))
    page = TemplateResponse(
        request,
        "admin/gateway/grant/continue.html",
        {**admin_site.each_context(request), "title": "Sign in", "auth": auth, "target": target},
    )
    page["Cache-Control"] = "no-store"
    return page


def callback_view(admin_site, request: HttpRequest) -> HttpResponse:
    """GET: the authorization server's answer; the grant is stored only if every check holds."""
    params = {key: request.GET.get(key, "") for key in request.GET}
    try:
        grant = async_to_sync(complete_authorization)(user=request.user, params=params)
    except AuthorizationFailed as error:
        logger.warning("upstream authorization refused for user %s: %s", request.user.pk, error)
        messages.error(request, f"Not connected: {error}")
        return HttpResponseRedirect(reverse(MY_CONNECTIONS))
    record_change(actor=admin_actor(request), action="added", obj=grant)
    upstream = Upstream.objects.get(pk=grant.upstream_id)
    whose = "for the team (shared)" if grant.member_id is None else "for you"
    messages.success(request, f"Connected {upstream} {whose}.")
    return HttpResponseRedirect(reverse(MY_CONNECTIONS))


def disconnect_view(admin_site, request: HttpRequest, upstream_id: int) -> HttpResponse:
    """POST: revoke and delete the user's grant on the upstream (a superuser: the team's).

    Raises:
        Http404: no such grant.
        PermissionDenied: the team's grant and the user is no superuser.
    """
    auth = get_object_or_404(
        UpstreamAuth.objects.select_related("upstream"), upstream_id=upstream_id
    )
    member = request.user if auth.mode == GrantMode.MEMBER else None
    if member is None and not request.user.is_superuser:
        raise PermissionDenied
    grant = Grant.objects.filter(upstream_id=upstream_id, member=member).first()
    if grant is None:
        raise Http404("not connected")
    record_change(actor=admin_actor(request), action="revoked", obj=grant)
    revoked = async_to_sync(disconnect)(grant)
    note = "its tokens were revoked" if revoked else "no revocation offered, or it was refused"
    messages.success(request, f"Disconnected {auth.upstream} ({note}).")
    return HttpResponseRedirect(reverse(MY_CONNECTIONS))


def client_metadata_view(request: HttpRequest) -> HttpResponse:
    """GET: the Client ID Metadata Document (only with a public https address)."""
    if not metadata_document_url():
        raise Http404("no public https address (LOCALROUTER_PUBLIC_URL)")
    return JsonResponse(metadata_document(callback_url(request)))
