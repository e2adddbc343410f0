"""The admin's login, throttled against password guessing.

`LOCALROUTER_LOGIN_FAILURE_LIMIT` wrong passwords from one client address, or for one user
name, within the window lock further attempts from that address (for that user name) for
the lockout: the login page says so, with status 429 and Retry-After, and no password is
checked meanwhile. The user name's count protects one account from guesses spread over many
addresses, at a price: anyone can lock an account out for the lockout by failing on purpose.
A successful login clears its user name's count, not its address's (else one account's
owner could keep guessing other accounts' passwords).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponse

from localrouter.client_address import address_bucket, request_address
from localrouter.failure_throttle import FailureThrottle, ThrottleRule
from localrouter.team_sign_in.login_page import login_page_context, password_login_refused

logins = FailureThrottle("admin-login")


def _rule() -> ThrottleRule:
    return ThrottleRule(
        settings.LOGIN_FAILURE_LIMIT, settings.LOGIN_FAILURE_WINDOW, settings.LOGIN_LOCKOUT_SECONDS
    )


def _wait_text(seconds: int) -> str:
    minutes = -(-seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}" if seconds > 90 else f"{seconds} s"


class ThrottledLoginForm(AdminAuthenticationForm):
    """The admin login form; refuses, before checking the password, while locked."""

    retry_after = 0

    def _user_key(self) -> str | None:
        username = self.cleaned_data.get("username")
        return f"user:{username.casefold()}" if username else None

    def _throttle_keys(self) -> list[str]:
        address = request_address(self.request) if self.request is not None else None
        address_key = f"address:{address_bucket(address)}" if address else None
        return [key for key in (address_key, self._user_key()) if key]

    def _locked_out(self) -> ValidationError:
        return ValidationError(
            "Too many failed logins from this address or for this user name. "
            f"Try again in {_wait_text(self.retry_after)}.",
            code="locked_out",
        )

    def clean(self) -> dict:
        keys = self._throttle_keys()
        self.retry_after = logins.locked_for(*keys)
        if self.retry_after:
            raise self._locked_out()
        try:
            cleaned = super().clean()
        except ValidationError as error:
            if error.code == "invalid_login":
                self.retry_after = logins.record_failure(_rule(), *keys)
                if self.retry_after:
                    raise self._locked_out() from None
            raise
        if user_key := self._user_key():
            logins.clear(user_key)
        return cleaned


def login_view(request: HttpRequest) -> HttpResponse:
    """The admin site's login view, answering 429 with Retry-After while locked out, and 403
    to a password while password login is off (team sign-in only)."""
    if request.method == "POST" and not settings.PASSWORD_LOGIN:
        return password_login_refused(request)
    response = admin.site.login(request, extra_context=login_page_context())
    form = getattr(response, "context_data", None) and response.context_data.get("form")
    if isinstance(form, ThrottledLoginForm) and form.has_error(NON_FIELD_ERRORS, "locked_out"):
        response.status_code = 429
        response["Retry-After"] = str(form.retry_after)
    return response
