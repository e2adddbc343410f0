"""The authorization server's protocol decisions, one method each (django-oauth-toolkit's
validator, with this gateway's rules on top)."""

from __future__ import annotations

from oauth2_provider.models import AbstractApplication
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from clients.oauth.connections import connection_client
from clients.oauth.resource import resource_for_uri

ALLOWED_GRANT_TYPES = ("authorization_code", "refresh_token")


def _resource(request) -> str:
    """This gateway's resource as the request reached it (the toolkit's headers are META's)."""
    scheme = "https" if request.headers.get("X_DJANGO_OAUTH_TOOLKIT_SECURE") else "http"
    return resource_for_uri(f"{scheme}://{request.headers.get('HTTP_HOST', '')}/")


class GatewayOAuth2Validator(OAuth2Validator):
    """Authorization code with PKCE only, exact redirect URIs, tokens for this gateway's
    /mcp alone, and each approval tied to the member's client for the application."""

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in ALLOWED_GRANT_TYPES and super().validate_grant_type(
            client_id, grant_type, client, request, *args, **kwargs
        )

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        return response_type == "code" and client.allows_grant_type(
            AbstractApplication.GRANT_AUTHORIZATION_CODE
        )

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        """Exactly one of the registered URIs, character for character (no loopback ports)."""
        return redirect_uri in request.client.redirect_uris.split()

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        """Bind the code to this gateway's resource, then connect the member's client.

        Raises:
            oauthlib.oauth2.rfc6749.errors.CustomOAuth2Error: another resource was asked for.
        """
        ours = _resource(request)
        asked = list(getattr(request, "resource", None) or [])
        if any(resource != ours for resource in asked):
            raise errors.CustomOAuth2Error(
                "invalid_target",
                description=f"this server issues tokens only for {ours}",
                state=request.state,
            )
        request.resource = [ours]
        super().save_authorization_code(client_id, code, request, *args, **kwargs)
        connection_client(user=request.user, application=request.client)
