"""`manage.py ensure_admin`: one admin user, created once, with a password shown once."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def run(**options) -> str:
    out = StringIO()
    call_command("ensure_admin", stdout=out, **options)
    return out.getvalue()


def test_the_first_run_creates_an_admin_and_prints_how_to_log_in(monkeypatch):
    monkeypatch.delenv("LOCALROUTER_ADMIN_PASSWORD", raising=False)
    output = run(url="http://127.0.0.1:8899/admin/")
    assert "Log in at http://127.0.0.1:8899/admin/" in output
    password = output.split("password: ", 1)[1].split()[0]
    assert get_user_model().objects.get(username="admin").check_password(password)


def test_the_password_can_come_from_the_environment_and_is_not_printed(monkeypatch):
    monkeypatch.setenv("LOCALROUTER_ADMIN_PASSWORD", "correct horse battery")
    output = run()
    assert "correct horse battery" not in output
    assert get_user_model().objects.get(username="admin").check_password("correct horse battery")


def test_later_runs_change_nothing(monkeypatch):
    monkeypatch.setenv("LOCALROUTER_ADMIN_PASSWORD", "first password")
    run()
    monkeypatch.setenv("LOCALROUTER_ADMIN_PASSWORD", "second password")
    assert run() == ""
    assert get_user_model().objects.get(username="admin").check_password("first password")
