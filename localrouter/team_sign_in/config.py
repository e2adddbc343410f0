"""Team sign-in's settings, read from the environment and checked at start-up.

Setting `LOCALROUTER_OIDC_ISSUER` turns team sign-in on; the client id and secret and at
least one group mapped to staff or superuser must then be set too, else nobody could sign in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from localrouter.config import ConfigError, boolean, choice, listing
from localrouter.team_sign_in.roles import GroupRoles

DEFAULT_SCOPES = "openid email profile"
CALLBACK_PATH = "/oidc/callback/"  # where the provider sends the browser back (urls.py)
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "HS256")


@dataclass(frozen=True)
class TeamSignIn:
    """How members sign in through the company's OpenID Connect provider."""

    issuer: str
    client_id: str
    client_secret: str
    provider_name: str
    scopes: str
    signing_algorithm: str
    token_auth_basic: bool  # client_secret_basic (the OpenID default), else client_secret_post
    roles: GroupRoles


def team_sign_in() -> TeamSignIn | None:
    """Team sign-in's settings, or None when `LOCALROUTER_OIDC_ISSUER` is unset.

    Raises:
        ConfigError: the issuer is no http(s) URL, or a required setting is missing.
    """
    issuer = _text("LOCALROUTER_OIDC_ISSUER").rstrip("/")
    if not issuer:
        return None
    parts = urlsplit(issuer)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise ConfigError(
            "LOCALROUTER_OIDC_ISSUER: expected the provider's issuer URL, such as "
            "https://login.example.com/realms/team"
        )
    client_id = _required("LOCALROUTER_OIDC_CLIENT_ID")
    client_secret = _required("LOCALROUTER_OIDC_CLIENT_SECRET")
    roles = GroupRoles(
        claim=_text("LOCALROUTER_OIDC_GROUPS_CLAIM") or "groups",
        staff=frozenset(listing("LOCALROUTER_OIDC_STAFF_GROUPS", [])),
        superuser=frozenset(listing("LOCALROUTER_OIDC_SUPERUSER_GROUPS", [])),
    )
    if not roles.staff and not roles.superuser:
        raise ConfigError(
            "LOCALROUTER_OIDC_STAFF_GROUPS or LOCALROUTER_OIDC_SUPERUSER_GROUPS: name at least "
            "one group of the provider whose members may sign in"
        )
    scopes = _text("LOCALROUTER_OIDC_SCOPES") or DEFAULT_SCOPES
    if "openid" not in scopes.split() or "email" not in scopes.split():
        raise ConfigError("LOCALROUTER_OIDC_SCOPES: must include openid and email")
    return TeamSignIn(
        issuer=issuer,
        client_id=client_id,
        client_secret=client_secret,
        provider_name=_text("LOCALROUTER_OIDC_PROVIDER_NAME") or "SSO",
        scopes=scopes,
        signing_algorithm=_signing_algorithm(),
        token_auth_basic=choice("LOCALROUTER_OIDC_TOKEN_AUTH", "basic", ("basic", "post"))
        == "basic",
        roles=roles,
    )


def password_login(sign_in: TeamSignIn | None) -> bool:
    """Whether the admin still takes user names and passwords (`LOCALROUTER_PASSWORD_LOGIN`).

    Raises:
        ConfigError: password login is turned off without team sign-in to replace it.
    """
    allowed = boolean("LOCALROUTER_PASSWORD_LOGIN", default=True)
    if not allowed and sign_in is None:
        raise ConfigError(
            "LOCALROUTER_PASSWORD_LOGIN=false needs team sign-in (LOCALROUTER_OIDC_ISSUER), "
            "else nobody could log into the admin"
        )
    return allowed


def callback_override(public_url: str) -> dict[str, str]:
    """The redirect URI sent to the provider when `LOCALROUTER_PUBLIC_URL` names the gateway's
    address (mozilla-django-oidc's extra request parameters); {} to take it from each request."""
    return {"redirect_uri": public_url + CALLBACK_PATH} if public_url else {}


def _text(name: str) -> str:
    return os.environ.get(name, "").strip()


def _required(name: str) -> str:
    value = _text(name)
    if not value:
        raise ConfigError(f"{name}: required when LOCALROUTER_OIDC_ISSUER is set")
    return value


def _signing_algorithm() -> str:
    raw = _text("LOCALROUTER_OIDC_SIGN_ALGORITHM").upper() or "RS256"
    if raw not in SIGNING_ALGORITHMS:
        raise ConfigError(
            f"LOCALROUTER_OIDC_SIGN_ALGORITHM: expected one of {', '.join(SIGNING_ALGORITHMS)}"
        )
    return raw
