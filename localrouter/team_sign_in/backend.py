"""The authentication backend of team sign-in: mozilla-django-oidc's, with LocalRouter's rules.

A member is found by the email address the provider vouches for (or a user of that name),
created on their first sign-in (with no usable password), and given staff and superuser
from their groups at every sign-in. A member in none of the allowed groups is refused and
nothing is created; an existing user of theirs loses staff and superuser.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from localrouter.team_sign_in.discovery import provider_endpoints

logger = logging.getLogger(__name__)

BACKEND_PATH = "localrouter.team_sign_in.backend.TeamSignInBackend"  # as sessions name it
REFUSAL_ATTRIBUTE = "team_sign_in_refusal"
NO_GROUP = (
    "Your account at {provider} is in none of the groups allowed to sign in to LocalRouter. "
    "Ask an administrator to add you to one."
)
NO_EMAIL = "{provider} gave no verified email address for your account."
INACTIVE = "Your LocalRouter user is deactivated. Ask an administrator."


def refusal(request: HttpRequest) -> str | None:
    """Why the backend refused this request's sign-in, in words for the member with
    `{provider}` for the provider's name (or None)."""
    return getattr(request, REFUSAL_ATTRIBUTE, None)


class TeamSignInBackend(OIDCAuthenticationBackend):
    """Signs members in with the provider's answer to the callback, and nothing else."""

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> Any:
        """The member behind the provider's callback; None for any other authentication.

        Raises:
            ProviderUnavailable: the provider's discovery document cannot be read.
            SuspiciousOperation: the ID token is forged, replayed or meant for another client.
            requests.RequestException: the provider did not answer the token or claims request.
        """
        sign_in = settings.TEAM_SIGN_IN
        # Only the callback view passes a nonce: a password login never reaches the provider.
        if sign_in is None or request is None or "nonce" not in kwargs:
            return None
        endpoints = provider_endpoints(sign_in.issuer)
        self.OIDC_OP_TOKEN_ENDPOINT = endpoints.token
        self.OIDC_OP_USER_ENDPOINT = endpoints.userinfo
        self.OIDC_OP_JWKS_ENDPOINT = endpoints.jwks
        return super().authenticate(request, **kwargs)

    def get_token(self, payload: dict[str, Any]) -> dict[str, Any]:
        # The code is redeemed with the redirect URI it was issued for (LOCALROUTER_PUBLIC_URL).
        return super().get_token({**payload, **settings.OIDC_AUTH_REQUEST_EXTRA_PARAMS})

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        payload = super().verify_token(token, **kwargs)
        if "nonce" in kwargs:  # the ID token (a signed userinfo answer comes without)
            self._check_id_token(payload)
        return payload

    def _check_id_token(self, payload: dict[str, Any]) -> None:
        sign_in = settings.TEAM_SIGN_IN
        audience = payload.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience or []
        if str(payload.get("iss", "")).rstrip("/") != sign_in.issuer:
            raise SuspiciousOperation("The ID token comes from another issuer")
        if sign_in.client_id not in audiences:
            raise SuspiciousOperation("The ID token is meant for another client")
        if "exp" not in payload:
            raise SuspiciousOperation("The ID token has no expiry")

    def get_userinfo(self, access_token: str, id_token: str, payload: dict) -> dict[str, Any]:
        """The ID token's claims, with the userinfo endpoint's over them (groups may be in
        either, depending on the provider)."""
        userinfo = super().get_userinfo(access_token, id_token, payload)
        if userinfo.get("sub") != payload.get("sub"):
            raise SuspiciousOperation("The userinfo answer is about another subject")
        return {**payload, **userinfo}

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        if not claims.get("email") or claims.get("email_verified") is False:
            return self._refuse(claims, NO_EMAIL)
        if settings.TEAM_SIGN_IN.roles.role_of(claims) is None:
            # Losing every group at the provider ends staff rights here too.
            self.filter_users_by_claims(claims).update(is_staff=False, is_superuser=False)
            return self._refuse(claims, NO_GROUP)
        return True

    def _refuse(self, claims: dict[str, Any], reason: str) -> bool:
        who = claims.get("email") or "?"
        provider = settings.TEAM_SIGN_IN.provider_name
        logger.warning("team sign-in refused for %s: %s", who, reason.format(provider=provider))
        setattr(self.request, REFUSAL_ATTRIBUTE, reason)
        return False

    def filter_users_by_claims(self, claims: dict[str, Any]) -> QuerySet:
        email = claims.get("email")
        if not email:
            return self.UserModel.objects.none()
        return self.UserModel.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))

    def get_username(self, claims: dict[str, Any]) -> str:
        return claims["email"]

    def create_user(self, claims: dict[str, Any]) -> Any:
        return self.update_user(super().create_user(claims), claims)

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        """The member's user with staff and superuser as their groups say today."""
        role = settings.TEAM_SIGN_IN.roles.role_of(claims)
        user.is_staff, user.is_superuser = role.is_staff, role.is_superuser
        user.email = claims["email"]
        user.save(update_fields=["is_staff", "is_superuser", "email"])
        if not user.is_active:
            setattr(self.request, REFUSAL_ATTRIBUTE, INACTIVE)
        else:
            kind = "superuser" if role.is_superuser else "staff"
            logger.info("team sign-in: %s signed in as %s", user.get_username(), kind)
        return user
