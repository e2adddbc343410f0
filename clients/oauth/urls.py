"""The authorization server's addresses (mounted at the site root, in the namespace
django-oauth-toolkit reverses its own URLs in)."""

from django.urls import path
from oauth2_provider import views as toolkit

from clients.oauth.views import ConsentView, ResourceMetadataView

app_name = "oauth2_provider"

urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        toolkit.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource",
        ResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        ResourceMetadataView.as_view(),
        name="oauth-resource-metadata-mcp",
    ),
    path("oauth/authorize/", ConsentView.as_view(), name="authorize"),
    path("oauth/token/", toolkit.TokenView.as_view(), name="token"),
    path("oauth/revoke/", toolkit.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register/", toolkit.DynamicClientRegistrationView.as_view(), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>/",
        toolkit.DynamicClientRegistrationManagementView.as_view(),
        name="dcr-register-management",
    ),
]
