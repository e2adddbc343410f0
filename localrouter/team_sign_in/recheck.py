"""Signed-in members are checked with the provider again every few minutes, without a word.

mozilla-django-oidc's `SessionRefresh` sends a member's GET request, once their last check
is older than `LOCALROUTER_OIDC_RECHECK_SECONDS`, through the provider with `prompt=none`
and back through the callback: the groups are applied again, and a member the provider no
longer signs in (session ended, account disabled, no allowed group) is signed out here.
Password logins are never sent there.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.functional import cached_property
from mozilla_django_oidc.middleware import SessionRefresh

from localrouter.team_sign_in.backend import BACKEND_PATH
from localrouter.team_sign_in.discovery import ProviderUnavailable, provider_endpoints

logger = logging.getLogger(__name__)


class SessionRecheck(SessionRefresh):
    """`SessionRefresh` with the provider's endpoint from discovery, off without team sign-in."""

    @cached_property
    def exempt_urls(self) -> set[str]:
        # The sign-in's own two steps (the library's list names a logout route we lack).
        return {reverse("oidc_authentication_init"), reverse("oidc_authentication_callback")}

    def is_refreshable_url(self, request: HttpRequest) -> bool:
        # Only sessions this backend signed in (the library would import any session's
        # backend path, and fail on one that no longer exists).
        ours = request.session.get(BACKEND_SESSION_KEY) == BACKEND_PATH
        on = settings.TEAM_SIGN_IN is not None and settings.OIDC_RENEW_ID_TOKEN_EXPIRY_SECONDS
        return ours and bool(on) and super().is_refreshable_url(request)

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if not self.is_refreshable_url(request):
            return None
        if request.session.get("oidc_id_token_expiration", 0) > time.time():
            return None
        try:
            endpoints = provider_endpoints(settings.TEAM_SIGN_IN.issuer)
        except ProviderUnavailable as error:
            # The provider being down must not sign the whole team out: check next time.
            logger.warning("team sign-in: cannot check a session again: %s", error)
            return None
        self.OIDC_OP_AUTHORIZATION_ENDPOINT = endpoints.authorization
        return super().process_request(request)
