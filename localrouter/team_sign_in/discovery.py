"""The provider's endpoints, from its OpenID Connect discovery document.

The document (`<issuer>/.well-known/openid-configuration`) is fetched at the first sign-in,
not at start-up (a provider that is down must not stop the gateway), and kept for an hour.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import requests

DISCOVERY_PATH = "/.well-known/openid-configuration"
KEEP_SECONDS = 3600
TIMEOUT_SECONDS = 10
REQUIRED = ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri")


class ProviderUnavailable(Exception):
    """The provider's discovery document could not be fetched or is unusable."""


@dataclass(frozen=True)
class ProviderEndpoints:
    """Where the browser is sent to sign in (and out), and where the gateway fetches tokens
    and claims."""

    authorization: str
    token: str
    userinfo: str
    jwks: str
    end_session: str  # '' when the provider offers no sign-out (RP-initiated logout)


_lock = threading.Lock()
_cache: dict[str, tuple[float, ProviderEndpoints]] = {}


def provider_endpoints(issuer: str) -> ProviderEndpoints:
    """The endpoints `issuer` publishes, fetched at most once an hour.

    Raises:
        ProviderUnavailable: the document could not be fetched, or names another issuer or
            lacks an endpoint.
    """
    with _lock:
        cached = _cache.get(issuer)
        if cached and time.monotonic() - cached[0] < KEEP_SECONDS:
            return cached[1]
    endpoints = _fetch(issuer)
    with _lock:
        _cache[issuer] = (time.monotonic(), endpoints)
    return endpoints


def forget() -> None:
    """Drop the kept documents (tests, and a changed provider)."""
    with _lock:
        _cache.clear()


def _fetch(issuer: str) -> ProviderEndpoints:
    url = issuer + DISCOVERY_PATH
    try:
        response = requests.get(url, timeout=TIMEOUT_SECONDS)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as error:
        raise ProviderUnavailable(f"cannot read {url}: {type(error).__name__}") from None
    if not isinstance(document, dict) or str(document.get("issuer", "")).rstrip("/") != issuer:
        raise ProviderUnavailable(f"{url} names another issuer than {issuer}")
    missing = [name for name in REQUIRED if not isinstance(document.get(name), str)]
    if missing:
        raise ProviderUnavailable(f"{url} lacks {', '.join(missing)}")
    return ProviderEndpoints(
        authorization=document["authorization_endpoint"],
        token=document["token_endpoint"],
        userinfo=document["userinfo_endpoint"],
        jwks=document["jwks_uri"],
        end_session=str(document.get("end_session_endpoint") or ""),
    )
