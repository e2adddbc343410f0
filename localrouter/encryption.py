"""Secrets encrypted at rest: Fernet under LOCALROUTER_ENCRYPTION_KEYS (first key encrypts,
every key decrypts), so keys rotate by putting a new one first (docs/oauth.md)."""

from __future__ import annotations

import base64
import hashlib
from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class UndecryptableSecret(Exception):
    """A stored secret that none of the configured keys decrypts."""


def derived_key(secret_key: str) -> str:
    """The Fernet key used when LOCALROUTER_ENCRYPTION_KEYS is unset: derived from SECRET_KEY."""
    digest = hashlib.sha256(b"localrouter-encryption-key:" + secret_key.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


@cache
def _keyring(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key) for key in keys])


def keyring() -> MultiFernet:
    """The configured keys: the first encrypts, all of them decrypt."""
    keys = tuple(settings.ENCRYPTION_KEYS) or (derived_key(settings.SECRET_KEY),)
    return _keyring(keys)


def encrypt(plain: str) -> str:
    """`plain` encrypted under the first key ('' stays '')."""
    if not plain:
        return ""
    return keyring().encrypt(plain.encode()).decode()


def decrypt(stored: str) -> str:
    """The plain text of `stored`.

    Raises:
        UndecryptableSecret: no configured key decrypts it (a key was removed too early).
    """
    if not stored:
        return ""
    try:
        return keyring().decrypt(stored.encode()).decode()
    except InvalidToken:
        raise UndecryptableSecret(
            "a stored secret could not be decrypted with LOCALROUTER_ENCRYPTION_KEYS "
            "(was the key it was written with removed?)"
        ) from None


def reencrypt(stored: str) -> str:
    """`stored` encrypted again under the first key."""
    if not stored:
        return ""
    try:
        return keyring().rotate(stored.encode()).decode()
    except InvalidToken:
        raise UndecryptableSecret(
            "a stored secret could not be decrypted for re-encryption"
        ) from None
