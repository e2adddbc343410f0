"""Client bearer tokens: generated with `secrets`, stored only as a SHA-256 hash."""

import hashlib
import hmac
import secrets

TOKEN_PREFIX = "lr_"
TOKEN_BYTES = 32
SHOWN_PREFIX_LENGTH = len(TOKEN_PREFIX) + 4


def generate_token() -> str:
    """A new random token: 'lr_' followed by 32 random bytes, URL-safe base64."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The stored form of a token (tokens are high-entropy, so a plain SHA-256 suffices)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def shown_prefix(token: str) -> str:
    """The part of a token that lists may show, e.g. 'lr_ab12'."""
    return token[:SHOWN_PREFIX_LENGTH]


def hashes_match(stored_hash: str, token: str) -> bool:
    """Compare a presented token with a stored hash in constant time."""
    return hmac.compare_digest(stored_hash, hash_token(token))
