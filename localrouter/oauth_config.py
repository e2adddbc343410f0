"""The authorization server's settings (django-oauth-toolkit's OAUTH2_PROVIDER), from ours.

Authorization code with PKCE S256 only, refresh tokens rotated with reuse detection, tokens
hashed at rest, one scope (`mcp`), exact redirect URIs; clients register through a Client ID
Metadata Document or, unless turned off, dynamic registration (RFC 7591).
"""

from __future__ import annotations

from typing import Any

MCP_SCOPE = "mcp"


def oauth_provider_settings(
    *,
    public_url: str,
    access_token_seconds: float,
    refresh_token_seconds: float,
    dynamic_registration: bool,
    redirect_schemes: list[str],
) -> dict[str, Any]:
    """OAUTH2_PROVIDER for django-oauth-toolkit."""
    return {
        "OAUTH2_VALIDATOR_CLASS": "clients.oauth.validator.GatewayOAuth2Validator",
        "SCOPES": {MCP_SCOPE: "Use this gateway's MCP tools as you"},
        "DEFAULT_SCOPES": [MCP_SCOPE],
        "ACCESS_TOKEN_EXPIRE_SECONDS": int(access_token_seconds),
        "REFRESH_TOKEN_EXPIRE_SECONDS": int(refresh_token_seconds),
        "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
        "ROTATE_REFRESH_TOKEN": True,
        "REFRESH_TOKEN_REUSE_PROTECTION": True,
        "PKCE_REQUIRED": True,
        "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
        "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
        "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
        "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
        "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
        "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
        "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
        "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
        "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
        "REQUEST_APPROVAL_PROMPT": "force",
        "ALLOWED_REDIRECT_URI_SCHEMES": redirect_schemes,
        "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
        "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
        "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
            "none",
            "client_secret_basic",
            "client_secret_post",
        ],
        # The issuer names this gateway; unset, each request's own address is used.
        "OIDC_ISS_ENDPOINT": public_url,
        "OAUTH2_PROTECTED_RESOURCE_NAME": "LocalRouter MCP gateway",
        "DCR_ENABLED": dynamic_registration,
        "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
        "CIMD_ENABLED": True,
        "CIMD_METADATA_FETCHER": "clients.oauth.metadata_document.MetadataDocumentFetcher",
        "CIMD_MAX_DOCUMENT_SIZE": 16 * 1024,
        "CIMD_FETCH_TIMEOUT_SECONDS": 5,
    }
