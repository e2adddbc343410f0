"""Upstream grants: what carrying a member's OAuth grant adds to a call, against a static token.

Run from the repository root:

    nice .venv/bin/python benchmarks/upstream_grants.py [--calls 300] [--rounds 4]

One LocalRouter (daphne on a free 127.0.0.1 port, fresh data dir) in front of the OAuth
fixture server (`tests/fixtures/servers/oauth_protected_server.py`, tokens valid an hour, so
nothing is refreshed) as two upstreams: `static`, whose requests carry a member's access
token as a plain `Authorization` header, and `granted`, set to *each member connects*, whose
requests carry the same member's grant (looked up and opened for every request, and checked
before every call). One SDK client owned by that member calls `whoami` on each, in
interleaved rounds (each upstream first in every other round) on one open session per era,
so load from elsewhere hits both alike.

The table goes to stdout and into docs/benchmarks.md between the
`<!-- upstream_grants:start -->` / `<!-- upstream_grants:end -->` markers (`--no-docs` skips).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import benchmarks` must find the package
from django.conf import settings  # noqa: E402

from benchmarks import _docs  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402  (sets Django up first)
from localrouter.encryption import derived_key  # noqa: E402
from tests.e2e.live import LiveGateway, start_gateway, stop_gateway  # noqa: E402
from tests.fixtures.http_server import run_oauth_server  # noqa: E402
from tests.fixtures.oauth_tokens import obtain_tokens, store_grant  # noqa: E402

SECTION = "upstream_grants"
ERAS = ("legacy", "2026-07-28")
UPSTREAMS = ("static", "granted")
WARM_UP = 20


def own_client() -> None:
    """The client belongs to the member `ann` (ORM code on the gateway's database)."""
    from django.contrib.auth.models import User

    from clients.models import Client

    Client.objects.filter(name="ann-laptop").update(owner=User.objects.get(username="ann"))


async def timed_calls(live: LiveGateway, mode: str, calls: int, rounds: int) -> dict[str, list]:
    """Milliseconds of each `whoami` call, per upstream, interleaved in rounds."""
    samples: dict[str, list[float]] = {name: [] for name in UPSTREAMS}
    async with live.client("ann-laptop", mode=mode) as client:
        for name in UPSTREAMS:
            for _ in range(WARM_UP):
                await client.call_tool(f"{name}__whoami", {})
        for round_ in range(rounds):
            for name in UPSTREAMS[:: 1 if round_ % 2 else -1]:  # each goes first in turn
                for _ in range(calls):
                    started = time.perf_counter()
                    result = await client.call_tool(f"{name}__whoami", {})
                    samples[name].append((time.perf_counter() - started) * 1000)
                    if result.is_error or result.content[0].text != "ann":
                        raise RuntimeError(f"{name}: unexpected answer {result.content}")
    return samples


def p99(values: list[float]) -> float:
    return sorted(values)[int(0.99 * (len(values) - 1))]


def section(results: dict[str, dict[str, list[float]]], options: argparse.Namespace) -> str:
    lines = [
        "## Upstream grants (OAuth)",
        "",
        f"Run {_docs.machine()}, with `nice .venv/bin/python benchmarks/upstream_grants.py "
        f"--calls {options.calls} --rounds {options.rounds}`.",
        "",
        "| era | upstream | calls | median ms | p99 ms | median vs static |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for mode, samples in results.items():
        base = statistics.median(samples["static"])
        for name in UPSTREAMS:
            median = statistics.median(samples[name])
            versus = (
                "-" if name == "static" else f"{median - base:+.3f} ms ({median / base - 1:+.1%})"
            )
            lines.append(
                f"| {mode} | {name} | {len(samples[name])} | {median:.3f} | "
                f"{p99(samples[name]):.2f} | {versus} |"
            )
    lines += [
        "",
        "Method: the same `whoami` call of the OAuth fixture server through one daphne worker, "
        "by an SDK client owned by the member; `static` sends that member's access token as "
        "a configured header, `granted` takes it from the member's stored grant (one indexed "
        "query and a decryption per HTTP request, one more before each call to check that "
        "the grant is there). The gateway's database is SQLite here. Client, gateway and "
        "upstream share this machine's CPUs.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per upstream per round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    options = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {}
    with (
        gateway_databases_ready(),
        tempfile.TemporaryDirectory(prefix="upstream-grants-") as workdir,
        run_oauth_server() as server,
    ):
        tokens = obtain_tokens(server.url, "ann")
        static = {"Authorization": f"Bearer {tokens.access_token}"}
        live = start_gateway(
            Path(workdir),
            [
                {"name": "static", "transport": "http", "url": server.url, "headers": static},
                {"name": "granted", "transport": "http", "url": server.url},
            ],
            [{"name": "ann-laptop"}],
            LOCALROUTER_ENCRYPTION_KEYS=",".join(settings.ENCRYPTION_KEYS)
            or derived_key(settings.SECRET_KEY),
        )
        try:
            live.orm(lambda: store_grant("granted", "ann", tokens))
            live.orm(own_client)
            for mode in ERAS:
                results[mode] = asyncio.run(timed_calls(live, mode, options.calls, options.rounds))
        finally:
            stop_gateway(live)
    text = section(results, options)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
