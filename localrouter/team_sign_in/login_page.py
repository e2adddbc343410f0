"""What the admin's login page offers: the password form, "Sign in with <provider>", or both."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse


def login_page_context() -> dict:
    """The login template's switches (templates/admin/login.html)."""
    sign_in = settings.TEAM_SIGN_IN
    return {
        "team_sign_in": sign_in.provider_name if sign_in else "",
        "password_login_off": not settings.PASSWORD_LOGIN,
    }


def password_login_refused(request: HttpRequest) -> HttpResponse:
    """The answer to a password posted while password login is off: 403, nothing checked."""
    context = {
        **admin.site.each_context(request),
        **login_page_context(),
        "title": "Log in",
        "password_refused": True,
        "next": request.POST.get("next", ""),
    }
    return TemplateResponse(request, "admin/login.html", context, status=403)
