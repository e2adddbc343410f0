"""Team sign-in's routes, under the names mozilla-django-oidc reverses."""

from django.urls import path

from localrouter.team_sign_in.views import SignInCallback, SignInStart

urlpatterns = [
    path("authenticate/", SignInStart.as_view(), name="oidc_authentication_init"),
    path("callback/", SignInCallback.as_view(), name="oidc_authentication_callback"),
]
