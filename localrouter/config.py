"""Read LocalRouter's configuration from the environment, with one clear error per mistake."""

from __future__ import annotations

import base64
import ipaddress
import os
import re
import secrets
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ

KNOWN_DATABASE_SCHEMES = {
    "sqlite": "django.db.backends.sqlite3",
    "postgres": "django.db.backends.postgresql",
    "postgresql": "django.db.backends.postgresql",
    "pgsql": "django.db.backends.postgresql",
    "mysql": "django.db.backends.mysql",
}

env = environ.Env()

# Hybrid vector search: the model `make embeddings` unpacks, the files the engine loads from
# it (indexing.engine.model_folder.MODEL_FILES) and the packages its encoder needs.
EMBEDDING_MODEL_SUBDIR = Path("var/models/all-MiniLM-L6-v2")
EMBEDDING_MODEL_FILES = ("model.safetensors", "tokenizer.json")
EMBEDDING_PACKAGES = ("numpy", "safetensors", "tokenizers")


class ConfigError(Exception):
    """A configuration value from the environment is unusable."""


def data_dir(project: Path) -> Path:
    """The directory that holds the SQLite database and the generated secret key.

    A relative `LOCALROUTER_DATA_DIR` (default `var`) is relative to the project folder,
    not the working directory: a client that starts `mcp_stdio` from elsewhere finds the
    same database.
    """
    path = (project / Path(env.str("LOCALROUTER_DATA_DIR", default="var")).expanduser()).resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"LOCALROUTER_DATA_DIR: cannot create {path}: {exc.strerror}") from exc
    return path


def embedding_model_dir(project: Path) -> Path:
    """The search model's folder: `LOCALROUTER_EMBEDDING_MODEL`, else the one `make` fills."""
    configured = env.str("LOCALROUTER_EMBEDDING_MODEL", default="")
    return Path(configured).expanduser() if configured else project / EMBEDDING_MODEL_SUBDIR


def embedding_backend_ready(folder: Path) -> bool:
    """Whether hybrid vector search can run here: numpy, safetensors and tokenizers are
    installed and `folder` holds the model's weights and tokenizer."""
    packages = all(find_spec(name) is not None for name in EMBEDDING_PACKAGES)
    return packages and all((folder / name).is_file() for name in EMBEDDING_MODEL_FILES)


def database_config(directory: Path) -> dict[str, Any]:
    """Django DATABASES['default'] from DATABASE_URL, defaulting to SQLite in the data dir."""
    url = env.str("DATABASE_URL", default="")
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(directory / "localrouter.sqlite3"),
            # Session records, the audit trail and the admin write from several threads:
            # a writer takes the lock when its transaction begins and others wait for it
            # (up to 20 s) instead of failing with "database is locked".
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    scheme = urlsplit(url).scheme
    if scheme not in KNOWN_DATABASE_SCHEMES:
        known = ", ".join(sorted(KNOWN_DATABASE_SCHEMES))
        raise ConfigError(
            f"DATABASE_URL: unsupported or missing scheme {scheme!r} (expected one of: {known}; "
            "e.g. postgres://user:password@127.0.0.1:5432/localrouter)"
        )
    config = env.db_url_config(url)
    if not config.get("NAME"):
        raise ConfigError("DATABASE_URL: no database name in the URL")
    return config


CHANNEL_CAPACITY = 1000  # messages waiting for one worker (docs/deploy.md: measured)


def channel_layers() -> dict[str, Any]:
    """The in-memory channel layer, or Redis when REDIS_URL is set."""
    url = env.str("REDIS_URL", default="")
    if not url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
        raise ConfigError("REDIS_URL: expected a redis:// or rediss:// URL")
    # redis-py 8 reads with a 5 s socket timeout, the same as channels_redis's blocking
    # pop: a receive that waits longer than that would fail instead of waiting on.
    host = {"address": url, "socket_timeout": 30}
    # channels_redis keeps all the channels of one process (its inbox for forwarded requests
    # and the replies it relays) in one list: this bounds all of them together.
    capacity = int(number("LOCALROUTER_CHANNEL_CAPACITY", CHANNEL_CAPACITY, minimum=10))
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [host], "capacity": capacity},
        }
    }


def caches() -> dict[str, Any]:
    """Django's cache: Redis when REDIS_URL is set (workers share what it counts, such as
    failed logins), else this process's memory."""
    url = env.str("REDIS_URL", default="")
    if not url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "localrouter",
            # An unreachable Redis fails a cache call in seconds, not a request in minutes.
            "OPTIONS": {"socket_connect_timeout": 5, "socket_timeout": 5},
        }
    }


def secret_key(directory: Path) -> str:
    """SECRET_KEY from the environment, else one generated once and kept in the data dir."""
    configured = env.str("SECRET_KEY", default="")
    if configured:
        return configured
    key_file = directory / "secret_key"
    try:
        if key_file.exists():
            return key_file.read_text().strip()
        key = secrets.token_urlsafe(50)
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(key)
        return key
    except FileExistsError:
        return key_file.read_text().strip()
    except OSError as exc:
        raise ConfigError(f"SECRET_KEY: cannot keep a generated key in {key_file}: {exc}") from exc


def boolean(name: str, default: bool) -> bool:
    """A boolean environment variable; anything but a clear yes/no is an error."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}: expected true/false, got {raw!r}")


def number(name: str, default: float, *, minimum: float) -> float:
    """A positive number from the environment."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}: expected a number, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name}: must be at least {minimum:g}, got {raw!r}")
    return value


def choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of a few fixed words from the environment (case-insensitive)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value not in choices:
        raise ConfigError(f"{name}: expected one of {', '.join(choices)}, got {raw!r}")
    return value


def route_name(name: str) -> str:
    """A worker's route name (empty: none): 1-16 lower-case letters, digits or '-', the
    prefix of its session ids that a reverse proxy matches (docs/deploy.md)."""
    value = os.environ.get(name, "").strip()
    if value and not re.fullmatch(r"[a-z0-9-]{1,16}", value):
        raise ConfigError(f"{name}: expected 1-16 of a-z, 0-9 and '-', got {value!r}")
    return value


def listing(name: str, default: list[str]) -> list[str]:
    """A comma-separated list from the environment."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def networks(name: str) -> list[str]:
    """A comma-separated list of IP addresses or networks (`10.0.0.0/8`), normalised."""
    found = []
    for item in listing(name, []):
        try:
            found.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ConfigError(f"{name}: {item!r} is not an IP address or network") from None
    return found


def public_url(name: str) -> str:
    """The address clients and browsers reach this gateway at (`https://mcp.example.com`),
    without a trailing slash; '' when unset (addresses are then taken from each request)."""
    raw = os.environ.get(name, "").strip().rstrip("/")
    if not raw:
        return ""
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{name}: expected an http(s) address such as https://mcp.example.com")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ConfigError(f"{name}: give the address alone, without query, fragment or user")
    return raw


CSP_DIRECTIVE = re.compile(r"^[a-z][a-z-]*$")


def csp_policy(name: str, default: dict, nonce: str) -> dict[str, list[str] | bool]:
    """A Content-Security-Policy from the environment (`directive value ...; ...`), where the
    word `'nonce'` stands for each response's nonce (`nonce`); `default` when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    policy: dict[str, list[str] | bool] = {}
    for part in filter(None, (piece.strip() for piece in raw.split(";"))):
        directive, *values = part.split()
        if not CSP_DIRECTIVE.match(directive):
            raise ConfigError(f"{name}: {directive!r} is not a directive name")
        # A directive without values (`upgrade-insecure-requests`) is True for Django.
        policy[directive] = [nonce if value == "'nonce'" else value for value in values] or True
    return policy


def fail(error: ConfigError) -> None:
    """Stop start-up with one clear line instead of a traceback."""
    sys.stderr.write(f"localrouter: configuration error: {error}\n")
    raise SystemExit(2)


def fernet_keys(name: str) -> list[str]:
    """Comma-separated Fernet keys (`Fernet.generate_key()`), each checked; [] when unset."""
    keys = listing(name, [])
    for position, key in enumerate(keys, 1):
        try:
            valid = len(base64.urlsafe_b64decode(key.encode())) == 32
        except ValueError:
            valid = False
        if not valid:
            raise ConfigError(
                f"{name}: key {position} is not a Fernet key (32 url-safe base64 bytes; "
                'make one with: python -c "from cryptography.fernet import Fernet; '
                'print(Fernet.generate_key().decode())")'
            )
    return keys
