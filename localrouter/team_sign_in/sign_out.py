"""Signing out: the admin's logout, and for a member who signed in through the provider, a
link that signs them out there too (else the provider's session signs the next person at
this browser straight back in)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import BACKEND_SESSION_KEY
from django.http import HttpRequest, HttpResponse

from localrouter.team_sign_in.backend import BACKEND_PATH
from localrouter.team_sign_in.discovery import ProviderUnavailable, provider_endpoints


def provider_sign_out_url(request: HttpRequest) -> str:
    """The provider's sign-out address for this session's member, or '' (a password login,
    or a provider without RP-initiated logout)."""
    sign_in = settings.TEAM_SIGN_IN
    if sign_in is None or request.session.get(BACKEND_SESSION_KEY) != BACKEND_PATH:
        return ""
    try:
        end_session = provider_endpoints(sign_in.issuer).end_session
    except ProviderUnavailable:
        return ""
    return f"{end_session}?{urlencode({'client_id': sign_in.client_id})}" if end_session else ""


def logout_view(request: HttpRequest) -> HttpResponse:
    """The admin's logout, offering the provider's sign-out on the signed-out page."""
    context = {"provider_sign_out": provider_sign_out_url(request)}
    if settings.TEAM_SIGN_IN:
        context["team_sign_in"] = settings.TEAM_SIGN_IN.provider_name
    return admin.site.logout(request, extra_context=context)
