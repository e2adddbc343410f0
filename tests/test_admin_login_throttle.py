"""Admin logins are throttled: too many wrong passwords from one address, or for one user
name, lock further attempts for a while (429, Retry-After, a message on the login page)."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db
LOGIN = "/admin/login/?next=/admin/"
PASSWORD = "pw-throttle-admin-1"
LOCKED = "Too many failed logins from this address or for this user name."


@pytest.fixture(autouse=True)
def limits(settings):
    settings.LOGIN_FAILURE_LIMIT = 3
    settings.LOGIN_FAILURE_WINDOW = 600
    settings.LOGIN_LOCKOUT_SECONDS = 600
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # quick
    cache.clear()
    yield settings
    cache.clear()


@pytest.fixture
def admins(django_user_model):
    for name in ("admin", "other"):
        django_user_model.objects.create_superuser(name, f"{name}@example.com", PASSWORD)


def log_in(username: str, password: str, address: str = "198.51.100.1"):
    browser = Client(REMOTE_ADDR=address)
    return browser.post(LOGIN, {"username": username, "password": password}), browser


def logged_in(browser: Client) -> bool:
    return browser.get("/admin/").status_code == 200


def test_wrong_passwords_from_one_address_lock_it_out_even_with_the_right_one(admins):
    for _ in range(2):
        response, _browser = log_in("admin", "wrong")
        assert response.status_code == 200 and LOCKED not in response.content.decode()
    response, _browser = log_in("admin", "wrong")
    assert response.status_code == 429
    response, browser = log_in("admin", PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) in range(540, 601)
    page = response.content.decode()
    assert f"{LOCKED} Try again in 10 minutes." in page
    assert 'id="login-form"' in page
    assert not logged_in(browser)


def test_one_address_guessing_many_user_names_is_locked_out(admins):
    for name in ("alice", "bob", "carol"):
        log_in(name, "wrong", address="203.0.113.5")
    response, browser = log_in("other", PASSWORD, address="203.0.113.5")
    assert response.status_code == 429 and not logged_in(browser)
    response, browser = log_in("other", PASSWORD, address="203.0.113.6")
    assert response.status_code == 302 and logged_in(browser)


def test_guesses_at_one_user_name_from_many_addresses_lock_that_user_name(admins):
    for n in range(3):
        log_in("Admin", "wrong", address=f"192.0.2.{n + 1}")
    response, browser = log_in("admin", PASSWORD, address="192.0.2.99")
    assert response.status_code == 429 and not logged_in(browser)
    response, browser = log_in("other", PASSWORD, address="192.0.2.99")
    assert response.status_code == 302 and logged_in(browser)


def test_a_successful_login_clears_its_user_names_failures(admins):
    for n in range(2):
        log_in("admin", "wrong", address=f"192.0.2.{n + 1}")
    assert log_in("admin", PASSWORD, address="192.0.2.10")[0].status_code == 302
    for n in range(2):
        log_in("admin", "wrong", address=f"192.0.2.{n + 20}")
    assert log_in("admin", PASSWORD, address="192.0.2.30")[0].status_code == 302
    # Counting goes on from zero: the third failure in a row locks.
    for n in range(2):
        log_in("admin", "wrong", address=f"192.0.2.{n + 40}")
    assert log_in("admin", "wrong", address="192.0.2.50")[0].status_code == 429


def test_addresses_in_one_ipv6_64_count_together(admins):
    for n in range(3):
        log_in(f"user{n}", "wrong", address=f"2001:db8:1:2::{n + 1}")
    response, _browser = log_in("admin", PASSWORD, address="2001:db8:1:2:ffff::9")
    assert response.status_code == 429
    assert log_in("admin", PASSWORD, address="2001:db8:1:3::1")[0].status_code == 302


UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
    }
}


def test_logins_still_work_when_the_cache_is_unreachable(admins, caplog):
    with (
        override_settings(CACHES=UNREACHABLE_REDIS),
        caplog.at_level(logging.WARNING, logger="localrouter.failure_throttle"),
    ):
        assert log_in("admin", "wrong")[0].status_code == 200
        assert log_in("admin", PASSWORD)[0].status_code == 302
    assert "admin-login: the cache failed (ConnectionError); not throttling" in caplog.text
