"""Secrets at rest: sealed with the first key, opened with any, re-encrypted by
`manage.py reencrypt_secrets` so that old keys can go; bad keys are refused at start."""

from __future__ import annotations

import io

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.test import override_settings

from gateway.models import Upstream
from gateway.upstream_auth.models import Grant, UpstreamAuth
from localrouter import config
from localrouter.encryption import UndecryptableSecret, decrypt, derived_key, encrypt

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


def test_a_secret_round_trips_and_is_not_stored_in_the_clear():
    with override_settings(ENCRYPTION_KEYS=[OLD]):
        sealed = encrypt("refresh-token-123")
        assert "refresh-token-123" not in sealed
        assert decrypt(sealed) == "refresh-token-123"
        assert encrypt("") == "" == decrypt("")


def test_without_keys_one_derived_from_the_secret_key_is_used():
    with override_settings(ENCRYPTION_KEYS=[], SECRET_KEY="s" * 50):
        sealed = encrypt("x")
    assert Fernet(derived_key("s" * 50)).decrypt(sealed.encode()) == b"x"


def test_an_old_key_still_opens_until_it_is_removed():
    with override_settings(ENCRYPTION_KEYS=[OLD]):
        sealed = encrypt("token")
    with override_settings(ENCRYPTION_KEYS=[NEW, OLD]):
        assert decrypt(sealed) == "token"
    with override_settings(ENCRYPTION_KEYS=[NEW]), pytest.raises(UndecryptableSecret):
        decrypt(sealed)


@pytest.mark.django_db
def test_reencrypt_secrets_moves_every_secret_to_the_first_key():
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://x.example/mcp")
    with override_settings(ENCRYPTION_KEYS=[OLD]):
        auth = UpstreamAuth(upstream=upstream, mode="member", client_id="id")
        auth.seal("client_secret", "client-secret")
        auth.save()
        grant = Grant(
            upstream=upstream, mode="shared", issuer="i", resource="r", token_endpoint="t"
        )
        grant.seal("access_token", "access")
        grant.seal("refresh_token", "refresh")
        grant.save()
    out = io.StringIO()
    with override_settings(ENCRYPTION_KEYS=[NEW, OLD]):
        call_command("reencrypt_secrets", stdout=out)
    assert "connections: 1 re-encrypted" in out.getvalue()
    with override_settings(ENCRYPTION_KEYS=[NEW]):  # the old key is gone
        grant.refresh_from_db()
        auth.refresh_from_db()
        assert grant.opened("access_token") == "access"
        assert grant.opened("refresh_token") == "refresh"
        assert auth.opened("client_secret") == "client-secret"


@pytest.mark.django_db
def test_reencrypt_secrets_changes_nothing_when_a_secret_cannot_be_opened():
    upstream = Upstream.objects.create(name="hosted", transport="http", url="https://x.example/mcp")
    with override_settings(ENCRYPTION_KEYS=[OLD]):
        grant = Grant(
            upstream=upstream, mode="shared", issuer="i", resource="r", token_endpoint="t"
        )
        grant.seal("access_token", "access")
        grant.save()
    with override_settings(ENCRYPTION_KEYS=[NEW]), pytest.raises(CommandError, match="nothing"):
        call_command("reencrypt_secrets", stdout=io.StringIO())
    assert Grant.objects.get().access_token_sealed == grant.access_token_sealed


def test_a_key_that_is_not_a_fernet_key_is_refused(monkeypatch):
    monkeypatch.setenv("LOCALROUTER_ENCRYPTION_KEYS", f"{NEW},not-a-key")
    with pytest.raises(config.ConfigError, match="key 2 is not a Fernet key"):
        config.fernet_keys("LOCALROUTER_ENCRYPTION_KEYS")
