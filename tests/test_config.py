"""Start-up configuration: clear one-line errors, a generated secret kept, PostgreSQL works."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SECRET_KEY")}
    if args[0] == "shell":
        args = (*args, "--no-imports")
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DATABASE_URL", "nonsense", "DATABASE_URL: unsupported or missing scheme"),
        ("DATABASE_URL", "postgres://127.0.0.1:5432", "DATABASE_URL: no database name"),
        ("REDIS_URL", "http://localhost", "REDIS_URL: expected a redis://"),
        ("DEBUG", "sometimes", "DEBUG: expected true/false"),
        ("LOCALROUTER_SESSION_IDLE_TIMEOUT", "soon", "LOCALROUTER_SESSION_IDLE_TIMEOUT: expected"),
        ("LOCALROUTER_INDEX_MAX_MIB", "0", "LOCALROUTER_INDEX_MAX_MIB: must be at least 1"),
        ("LOCALROUTER_SERVER", "gunicorn", "LOCALROUTER_SERVER: expected one of daphne, uvicorn"),
        ("LOCALROUTER_METRICS_TOKEN", "short", "LOCALROUTER_METRICS_TOKEN: use at least 16"),
        ("OTEL_TRACES_EXPORTER", "zipkin", "OTEL_TRACES_EXPORTER: zipkin is not built in"),
        (
            "LOCALROUTER_TRUSTED_PROXIES",
            "127.0.0.1, proxy.example",
            "LOCALROUTER_TRUSTED_PROXIES: 'proxy.example' is not an IP address or network",
        ),
        ("LOCALROUTER_CSP", "strict", "LOCALROUTER_CSP: expected one of enforce, report-only, off"),
        ("LOCALROUTER_CSP_POLICY", "default_src 'self'", "LOCALROUTER_CSP_POLICY: 'default_src'"),
        ("LOCALROUTER_LOGIN_FAILURE_LIMIT", "-1", "LOCALROUTER_LOGIN_FAILURE_LIMIT: must be"),
        ("LOCALROUTER_OIDC_ISSUER", "https://idp.example", "LOCALROUTER_OIDC_CLIENT_ID: required"),
        ("LOCALROUTER_PASSWORD_LOGIN", "false", "LOCALROUTER_PASSWORD_LOGIN=false needs team"),
        ("LOCALROUTER_WORKER_ROUTE", "w 8001", "LOCALROUTER_WORKER_ROUTE: expected 1-16 of a-z"),
        ("LOCALROUTER_FORWARD_TIMEOUT", "0", "LOCALROUTER_FORWARD_TIMEOUT: must be at least 1"),
        ("LOCALROUTER_WORKER_HEARTBEAT", "fast", "LOCALROUTER_WORKER_HEARTBEAT: expected a"),
        (
            "LOCALROUTER_RESPONSE_VECTORS_MAX_KIB",
            "-1",
            "LOCALROUTER_RESPONSE_VECTORS_MAX_KIB: must",
        ),
        ("LOCALROUTER_RESPONSE_VECTORS_QUEUE", "0", "LOCALROUTER_RESPONSE_VECTORS_QUEUE: must"),
        (
            "LOCALROUTER_RESPONSE_STATIC_VECTORS",
            "maybe",
            "LOCALROUTER_RESPONSE_STATIC_VECTORS: expected true/false",
        ),
        (
            "LOCALROUTER_RESPONSE_VECTORS_CANDIDATES",
            "-1",
            "LOCALROUTER_RESPONSE_VECTORS_CANDIDATES: must",
        ),
        (
            "LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS",
            "soon",
            "LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS: expected a number",
        ),
        (
            "LOCALROUTER_RESPONSE_VECTORS_CPU_SHARE",
            "2",
            "LOCALROUTER_RESPONSE_VECTORS_CPU_SHARE: at most 1",
        ),
    ],
)
def test_a_bad_environment_value_stops_start_up_with_one_clear_line(tmp_path, name, value, message):
    result = manage("check", env={"LOCALROUTER_DATA_DIR": str(tmp_path), name: value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"localrouter: configuration error: {message}")
    assert "Traceback" not in result.stderr


def test_a_secret_key_is_generated_once_and_kept(tmp_path):
    env = {"LOCALROUTER_DATA_DIR": str(tmp_path)}
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    first = manage("shell", "-c", code, env=env)
    second = manage("shell", "-c", code, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert len(first.stdout.strip()) >= 50
    key_file = tmp_path / "secret_key"
    assert key_file.read_text().strip() == first.stdout.strip()
    assert key_file.stat().st_mode & 0o077 == 0


@pytest.fixture
def postgres_database():
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        pytest.skip("TEST_DATABASE_URL is not set (CI sets it to the machine's PostgreSQL)")
    import psycopg

    name = f"lr_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_migrations_and_create_client_work_on_postgresql(tmp_path, postgres_database):
    env = {"LOCALROUTER_DATA_DIR": str(tmp_path), "DATABASE_URL": postgres_database}
    migrated = manage("migrate", "--noinput", env=env, timeout=120)
    assert migrated.returncode == 0, migrated.stderr
    created = manage("create_client", "alice", "--set", "response_threshold=4096", env=env)
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    check = manage(
        "shell",
        "-c",
        f"from clients.services import client_for_token; print(client_for_token({token!r}))",
        env=env,
    )
    assert check.stdout.strip() == "alice"


def test_behind_a_tls_proxy_the_forwarded_scheme_is_trusted_and_cookies_are_secure(tmp_path):
    code = (
        "from django.conf import settings as s; "
        "print(getattr(s, 'SECURE_PROXY_SSL_HEADER', None), s.SESSION_COOKIE_SECURE)"
    )
    env = {"LOCALROUTER_DATA_DIR": str(tmp_path)}
    direct = manage("shell", "-c", code, env=env)
    proxied = manage("shell", "-c", code, env={**env, "LOCALROUTER_BEHIND_TLS_PROXY": "true"})
    assert direct.stdout.strip() == "None False", direct.stderr
    assert proxied.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https') True", proxied.stderr


SECURITY_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.SECURE_CSP, s.SECURE_CSP_REPORT_ONLY, s.SECURE_HSTS_SECONDS, s.TRUSTED_PROXIES, "
    "s.CACHES['default']['BACKEND'].rsplit('.', 1)[1])"
)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LOCALROUTER_BEHIND_TLS_PROXY": "true"}, "31536000 [] LocMemCache"),
        (
            {"LOCALROUTER_BEHIND_TLS_PROXY": "true", "LOCALROUTER_HSTS_SECONDS": "0"},
            "0 [] LocMemCache",
        ),
        ({"LOCALROUTER_HSTS_SECONDS": "600"}, "0 [] LocMemCache"),  # plain HTTP: never
        (
            {
                "LOCALROUTER_TRUSTED_PROXIES": "127.0.0.1, 10.1.2.3/8",
                "REDIS_URL": "redis://r:6379/1",
            },
            "0 ['127.0.0.1/32', '10.0.0.0/8'] RedisCache",
        ),
    ],
)
def test_hsts_trusted_proxies_and_the_cache_follow_the_environment(tmp_path, env, expected):
    result = manage(
        "shell", "-c", SECURITY_SETTINGS, env={"LOCALROUTER_DATA_DIR": str(tmp_path), **env}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(expected)


@pytest.mark.parametrize(
    ("env", "enforced", "reported"),
    [
        ({}, "default-src 'self'; script-src 'self' 'nonce-N'", ""),
        ({"LOCALROUTER_CSP": "report-only"}, "", "default-src 'self'; script-src 'self' 'nonce-N'"),
        ({"LOCALROUTER_CSP": "off"}, "", ""),
        (
            {
                "LOCALROUTER_CSP_POLICY": "default-src 'none';script-src 'nonce'; "
                "block-all-mixed-content"
            },
            "default-src 'none'; script-src 'nonce-N'; block-all-mixed-content",
            "",
        ),
    ],
)
def test_the_admins_csp_follows_the_environment(tmp_path, env, enforced, reported):
    code = (
        "from django.conf import settings as s; from django.utils.csp import build_policy as b; "
        "print(b(s.SECURE_CSP, 'N')); print(b(s.SECURE_CSP_REPORT_ONLY, 'N'))"
    )
    result = manage("shell", "-c", code, env={"LOCALROUTER_DATA_DIR": str(tmp_path), **env})
    assert result.returncode == 0, result.stderr
    policy, report_only = result.stdout.splitlines()[-2:]
    for shown, expected in ((policy, enforced), (report_only, reported)):
        assert shown.startswith(expected) if expected else shown == ""
