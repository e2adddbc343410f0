"""The /mcp token check: a bearer token to the client it lets in, `lr_` against OAuth.

Run from the repository root:

    .venv/bin/python benchmarks/token_check.py [--checks 2000] [--no-docs]

In this process, on a fresh SQLite database (migrated in a temporary data dir), with one
client holding an `lr_` token and one member's connected application holding an OAuth
access token. Measured: the database lookup and snapshot (`identity_for_token`, what
every check costs when nothing is cached) and the check through the worker's cache
(`IdentityCache.authenticate`: `lr_` identities are kept 5 s, OAuth ones 1 s at most, so
revocation reaches every worker within that second). The table goes to stdout and into
docs/benchmarks.md between the `<!-- token_check:start -->` / `<!-- token_check:end -->`
markers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import benchmarks` must find the package
from benchmarks import _docs  # noqa: E402

RESOURCE = "http://127.0.0.1:8000/mcp"


def set_up_django(data_dir: str) -> None:
    os.environ["LOCALROUTER_DATA_DIR"] = data_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def tokens() -> tuple[str, str]:
    """(an lr_ token, an OAuth access token) of two clients."""
    from django.contrib.auth.models import User
    from django.utils import timezone
    from oauth2_provider.models import AccessToken, Application

    from clients.oauth.connections import connection_client
    from clients.services import client_create

    _client, lr_token = client_create(name="bench")
    member = User.objects.create_user("bench-member", is_staff=True)
    application = Application.objects.create(
        name="bench app",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="http://127.0.0.1:9/cb",
    )
    connection_client(user=member, application=application)
    oauth_token = "benchOAuthToken0123456789abcdefghij"
    AccessToken.objects.create(
        user=member,
        application=application,
        token=oauth_token,
        expires=timezone.now() + timedelta(hours=1),
        scope="mcp",
        resource=[RESOURCE],
    )
    return lr_token, oauth_token


def timed(function, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1e6)
    return samples


async def timed_async(function, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await function()
        samples.append((time.perf_counter() - start) * 1e6)
    return samples


def row(name: str, samples: list[float]) -> list[str]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return [name, f"{statistics.median(ordered):.1f}", f"{p99:.1f}", str(len(ordered))]


def measure(checks: int) -> list[list[str]]:
    from clients.oauth.access import oauth_access
    from clients.services import client_for_token
    from gateway.sessions.identity import IdentityCache, identity_for_token

    lr_token, oauth_token = tokens()
    rows = [
        row("lr_ token: token lookup alone", timed(lambda: client_for_token(lr_token), checks)),
        row(
            "OAuth access token: token lookup alone (audience, expiry, scope, client)",
            timed(lambda: oauth_access(oauth_token, RESOURCE), checks),
        ),
    ]
    for label, token in (("lr_ token", lr_token), ("OAuth access token", oauth_token)):
        found, _keep = identity_for_token(token, RESOURCE)
        assert found.name, found
        samples = timed(lambda token=token: identity_for_token(token, RESOURCE), checks)
        rows.append(row(f"{label}: database lookup and snapshot", samples))

    async def cached() -> None:
        cache = IdentityCache()
        for label, token in (("lr_ token", lr_token), ("OAuth access token", oauth_token)):
            await cache.authenticate(token, RESOURCE)
            samples = await timed_async(lambda t=token: cache.authenticate(t, RESOURCE), checks)
            rows.append(row(f"{label}: through the worker's cache", samples))

    asyncio.run(cached())
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--no-docs", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="token-check-") as data_dir:
        set_up_django(data_dir)
        rows = measure(options.checks)
    table = _docs.markdown_table(["Check", "median µs", "p99 µs", "checks"], rows, "lrrr")
    command = f"`.venv/bin/python benchmarks/token_check.py --checks {options.checks}`"
    text = (
        f"## Token check\n\nRun {_docs.machine()} with {command}.\n\n{table}\n\n"
        "Method: see the script's docstring; the snapshot adds the client's settings and "
        "recent tool usage to the lookup. SQLite in a temporary folder, in this process; "
        "with PostgreSQL add a network round trip per lookup. A cached check makes no "
        "database query; an OAuth identity is looked up again at most every second (lr_: "
        "every 5 s), so on a busy client the lookup's cost is spread over that second's calls."
    )
    print(text)
    if not options.no_docs:
        _docs.write_section("token_check", text)


if __name__ == "__main__":
    main()
