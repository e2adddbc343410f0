"""Requests to an authorization server's token and revocation endpoints (RFC 6749, RFC 7009)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import httpx2

TIMEOUT_SECONDS = 15.0
TERMINAL_ERRORS = frozenset({"invalid_grant", "invalid_client", "unauthorized_client"})
"""Token errors that no retry will mend: the grant needs re-authorization."""


class TokenEndpointError(Exception):
    """The token endpoint refused, or could not be reached (`error` is then 'unreachable')."""

    def __init__(self, error: str, description: str = "") -> None:
        self.error = error
        self.description = description
        super().__init__(f"{error}: {description}" if description else error)

    @property
    def terminal(self) -> bool:
        """No retry will mend it: the grant must be authorized again."""
        return self.error in TERMINAL_ERRORS


@dataclass(frozen=True)
class Tokens:
    """A token endpoint's successful answer."""

    access_token: str
    refresh_token: str
    expires_in: float | None
    scope: str


@dataclass(frozen=True)
class ClientCredentials:
    client_id: str
    client_secret: str = ""

    def form(self) -> dict[str, str]:
        """Client authentication in the request body (client_secret_post, or a public client)."""
        if self.client_secret:
            return {"client_id": self.client_id, "client_secret": self.client_secret}
        return {"client_id": self.client_id}


def http_client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False)


async def request_tokens(endpoint: str, form: dict[str, str], client: ClientCredentials) -> Tokens:
    """POST `form` (a grant) to the token endpoint.

    Raises:
        TokenEndpointError: the server refused the grant or answered nonsense, or was unreachable.
    """
    try:
        async with http_client() as http:
            response = await http.post(endpoint, data={**form, **client.form()})
    except httpx2.HTTPError as error:
        raise TokenEndpointError("unreachable", f"{type(error).__name__}") from None
    body = _json_object(response.content)
    if response.status_code != 200:
        raise TokenEndpointError(
            str(body.get("error") or f"HTTP {response.status_code}"),
            str(body.get("error_description") or "")[:300],
        )
    access = body.get("access_token")
    if not isinstance(access, str) or not access:
        raise TokenEndpointError("invalid_response", "the token endpoint sent no access_token")
    if str(body.get("token_type", "")).lower() != "bearer":
        raise TokenEndpointError("invalid_response", "the token endpoint sent no bearer token")
    expires_in = body.get("expires_in")
    return Tokens(
        access_token=access,
        refresh_token=body.get("refresh_token")
        if isinstance(body.get("refresh_token"), str)
        else "",
        expires_in=float(expires_in) if isinstance(expires_in, int | float) else None,
        scope=str(body.get("scope") or ""),
    )


async def revoke(endpoint: str, token: str, hint: str, client: ClientCredentials) -> bool:
    """Ask the server to revoke `token` (RFC 7009); whether it said yes."""
    try:
        async with http_client() as http:
            response = await http.post(
                endpoint, data={"token": token, "token_type_hint": hint, **client.form()}
            )
    except httpx2.HTTPError:
        return False
    return response.status_code == 200


def _json_object(content: bytes) -> dict:
    try:
        body = json.loads(content)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
