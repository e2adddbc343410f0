"""HTTP routes served by Django (the admin, OAuth); /mcp is routed in asgi.py."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from localrouter.admin_login import ThrottledLoginForm, login_view
from localrouter.team_sign_in.sign_out import logout_view

admin.site.site_header = "LocalRouter"
admin.site.site_title = "LocalRouter admin"
admin.site.index_title = "Gateway administration"
admin.site.login_form = ThrottledLoginForm

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    # Ahead of the admin's own login URL, at the same path: the throttled view.
    path("admin/login/", login_view),
    path("admin/logout/", logout_view),
    path("admin/", admin.site.urls),
    # Team sign-in through the company's OpenID Connect provider (404 while unconfigured).
    path("oidc/", include("localrouter.team_sign_in.urls")),
    # OAuth: metadata at the well-known addresses, the endpoints under /oauth/ (docs/auth.md).
    path("", include("clients.oauth.urls")),
]
