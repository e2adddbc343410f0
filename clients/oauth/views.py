"""The authorization server's pages that differ from django-oauth-toolkit's: the consent
page (under the member's admin login) and the protected resource metadata (RFC 9728)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.middleware.csp import get_nonce
from django.utils.csp import CSP, build_policy
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.views import AuthorizationView, OAuthProtectedResourceMetadataView
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error

from clients.oauth.resource import issuer_url, mcp_resource_url


def _redirect_source(redirect_uri: str) -> str:
    """The CSP source that lets the consent form's answer redirect to the client."""
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


def _allow_redirect_to(response: HttpResponse, request: HttpRequest, redirect_uri: str) -> None:
    """The page's CSP with the client's address added to form-action: the approval's
    redirect to the client is a navigation the browser checks against it."""
    source = _redirect_source(redirect_uri)
    for header, config in (
        (CSP.HEADER_ENFORCE, settings.SECURE_CSP),
        (CSP.HEADER_REPORT_ONLY, settings.SECURE_CSP_REPORT_ONLY),
    ):
        if config:  # set here, the middleware leaves the header as it is
            policy = {**config, "form-action": [CSP.SELF, source]}
            response.headers[str(header)] = build_policy(policy, get_nonce(request))


class ConsentView(AuthorizationView):
    """The member approves or denies an application; tokens are only for this gateway's /mcp."""

    template_name = "oauth/consent.html"

    def validate_authorization_request(self, request: HttpRequest):
        """Raises: OAuthToolkitError (invalid_target) for a resource other than this one."""
        scopes, credentials = super().validate_authorization_request(request)
        ours = mcp_resource_url(request)
        if any(resource != ours for resource in request.GET.getlist("resource")):
            error = CustomOAuth2Error(
                "invalid_target",
                description=f"this server issues tokens only for {ours}",
                state=credentials.get("state"),
            )
            raise OAuthToolkitError(error=error, redirect_uri=credentials["redirect_uri"])
        return scopes, credentials

    def get_context_data(self, **kwargs):
        return {
            **admin.site.each_context(self.request),
            **super().get_context_data(**kwargs),
            "resource": mcp_resource_url(self.request),
            "title": "Connect an application",
            "is_nav_sidebar_enabled": False,
        }

    def render_to_response(self, context, **kwargs) -> HttpResponse:
        response = super().render_to_response(context, **kwargs)
        if context.get("redirect_uri"):
            response.render()  # the page's nonce exists once it is rendered; the policy names it
            _allow_redirect_to(response, self.request, context["redirect_uri"])
        return response


class ResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 metadata naming /mcp (at both the plain and the path-suffixed address)."""

    def get_resource(self, request: HttpRequest) -> str:
        return mcp_resource_url(request)

    def get_authorization_servers(self, request: HttpRequest) -> list[str]:
        return [issuer_url(request)]
