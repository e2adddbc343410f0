"""The two steps of a sign-in through the provider, and the page that explains a refusal.

mozilla-django-oidc's views run the protocol; these add what LocalRouter needs around them:
404 while team sign-in is off, the provider's endpoints from discovery, and a clear page
(never a traceback) when the provider is unreachable, the link is stale or the member is
refused.
"""

from __future__ import annotations

import logging

import requests
from django.conf import settings
from django.contrib import admin, auth
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from localrouter.team_sign_in.backend import refusal
from localrouter.team_sign_in.discovery import ProviderUnavailable, provider_endpoints

logger = logging.getLogger(__name__)

UNREACHABLE = "{provider} could not be reached. Try again in a moment, or ask an administrator."
STALE = (
    "This sign-in could not be completed (it was started elsewhere, or already used). Try again."
)
FAILED = "{provider} did not sign you in."
SESSION_ENDED = "Your session at {provider} has ended. Sign in again."


def problem_page(request: HttpRequest, reason: str, status: int) -> HttpResponse:
    """The page that tells a member why they are not signed in."""
    provider = settings.TEAM_SIGN_IN.provider_name
    context = {
        **admin.site.each_context(request),
        "title": "Sign-in refused",
        "reason": reason.format(provider=provider),
    }
    return TemplateResponse(request, "admin/team_sign_in_problem.html", context, status=status)


def _enabled() -> None:
    if settings.TEAM_SIGN_IN is None:
        raise Http404("Team sign-in is not configured")


class SignInStart(OIDCAuthenticationRequestView):
    """Sends the browser to the provider, with state, nonce and a PKCE challenge."""

    def get(self, request: HttpRequest) -> HttpResponse:
        _enabled()
        try:
            endpoints = provider_endpoints(settings.TEAM_SIGN_IN.issuer)
        except ProviderUnavailable as error:
            logger.warning("team sign-in: %s", error)
            return problem_page(request, UNREACHABLE, 502)
        self.OIDC_OP_AUTH_ENDPOINT = endpoints.authorization
        return super().get(request)


class SignInCallback(OIDCAuthenticationCallbackView):
    """Takes the provider's answer: signs the member in, or says why not."""

    def get(self, request: HttpRequest) -> HttpResponse:
        _enabled()
        try:
            return super().get(request)
        except SuspiciousOperation as error:
            logger.warning("team sign-in: refused a callback: %s", error)
            return problem_page(request, STALE, 400)
        except ProviderUnavailable as error:
            logger.warning("team sign-in: %s", error)
            return problem_page(request, UNREACHABLE, 502)
        except requests.RequestException as error:
            # The message may quote the provider's answer: name the failure only.
            status = getattr(error.response, "status_code", None)
            logger.warning(
                "team sign-in: the provider failed (%s, %s)", type(error).__name__, status
            )
            return problem_page(request, UNREACHABLE, 502)

    def login_failure(self) -> HttpResponse:
        # A refused sign-in leaves nobody signed in, not even whoever was before.
        auth.logout(self.request)
        # A silent check (prompt=none) finds the provider's session over.
        ended = self.request.GET.get("error") == "login_required"
        reason = refusal(self.request) or (SESSION_ENDED if ended else FAILED)
        return problem_page(self.request, reason, 403)
