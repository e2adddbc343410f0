"""Fuzz: thousands of malformed or odd requests against LocalRouter; none may get a 5xx or hang.

Run from the repository root (nice'd: the machine may be shared):

    nice .venv/bin/python benchmarks/fuzz.py [--cases 10000] [--seed 19] [--no-docs]

Cases, generated from a seed (the same seed gives the same cases):

* envelopes: bodies that are not JSON, not objects, batches, wrong `jsonrpc`, odd ids and
  methods, deep nesting, long strings, stray fields, responses nobody asked for;
* params of every method the gateway serves, well-formed envelopes with random values;
* `IndexSearch` / `IndexRead` arguments (and calls to tools that exist or not);
* import files: `mcpServers` / `servers` documents, broken and odd, through the parser
  `import_mcp_servers` and the admin's import use.

HTTP cases are POSTed, a few at a time, to one daphne on a free 127.0.0.1 port (fresh data
dir, one stdio upstream: the SDK fixture `tests/fixtures/servers/echo_server.py`) on one
handshake-era session; each outcome is grouped by HTTP status and JSON-RPC error code (or
result). A 5xx, a request unanswered after 20 s (a hang) and, for import files, an
exception other than the parser's own error are failures. The table goes to stdout and into
docs/reliability.md between `<!-- fuzz:start -->` / `<!-- fuzz:end -->` (`--no-docs`
skips). Every process started here is stopped before exit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script: `benchmarks` and `tests` must be importable
from benchmarks import _docs  # noqa: E402
from benchmarks._live import gateway_databases_ready  # noqa: E402  (sets Django up first)
from tests.e2e.live import (  # noqa: E402
    INITIALIZE,
    LiveGateway,
    start_gateway,
    stdio_upstream,
    stop_gateway,  # noqa: E402
)

RELIABILITY = ROOT / "docs" / "reliability.md"
SECTION = "fuzz"
HANG_SECONDS = 20.0
ACCEPT = "application/json, text/event-stream"
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
]
FAILURES = ("5xx", "hang", "crash")


@dataclass(frozen=True)
class Case:
    """One fuzz case: a POST body (`kind` says what it exercises) or an import file's text."""

    kind: str
    payload: bytes


class Values:
    """Random JSON values, odd ones over-represented."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def text(self) -> str:
        choices = [
            "",
            " ",
            "echo",
            "a" * self.rng.choice([1, 100, 10_000, 100_000]),
            '" OR 1=1 --',
            "NEAR(a b)",
            "*",
            "\u0000\ud7ff\ufeff",
            "🙂" * 50,
            "../../etc/passwd",
            "mcp/",
            "echo__big_text:1",
            "<script>alert(1)</script>",
            "%s%n{0}",
            str(self.rng.randint(-(10**20), 10**20)),
        ]
        return self.rng.choice(choices)

    def number(self) -> int | float:
        return self.rng.choice(
            [0, -1, 1, 2**31, -(2**63), 2**64, 10**30, 1.5, -0.0, 1e308, 3, 20, 21]
        )

    def scalar(self):
        kind = self.rng.randrange(5)
        return [None, True, self.number(), self.text(), False][kind]

    def value(self, depth: int = 0):
        kind = self.rng.randrange(8 if depth < 3 else 4)
        if kind < 4:
            return self.scalar()
        if kind < 6:
            return [self.value(depth + 1) for _ in range(self.rng.randrange(4))]
        return {self.text()[:20]: self.value(depth + 1) for _ in range(self.rng.randrange(4))}


def _body(message) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def envelope_case(rng: random.Random, values: Values) -> Case:
    choice = rng.randrange(12)
    if choice == 0:
        return Case("envelope", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))
    if choice == 1:
        text = _body({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        return Case("envelope", text[: rng.randrange(len(text))])
    if choice == 2:
        depth = rng.choice([150, 250, 2_000, 100_000])
        opening, closing = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        nested = opening * depth + b"1" + closing * depth
        return Case(
            "envelope", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + nested + b"}"
        )
    if choice == 3:
        batch = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(rng.randrange(3))]
        return Case("envelope", _body(batch))
    message = {"jsonrpc": "2.0", "id": rng.randrange(10**6), "method": "ping"}
    field = rng.choice(["jsonrpc", "id", "method", "params", "result", "error", "extra"])
    if rng.random() < 0.3:
        message.pop(field, None)
    else:
        message[field] = values.value()
    return Case("envelope", _body(rng.choice([message, values.value(), [message]])))


def params_case(rng: random.Random, values: Values) -> Case:
    method = rng.choice(METHODS)
    message = {"jsonrpc": "2.0", "method": method}
    if not method.startswith("notifications/"):
        message["id"] = rng.randrange(10**9)
    roll = rng.random()
    if roll < 0.7:
        message["params"] = {
            key: values.value()
            for key in rng.sample(
                [
                    "name",
                    "arguments",
                    "uri",
                    "cursor",
                    "ref",
                    "argument",
                    "level",
                    "_meta",
                    "protocolVersion",
                    "capabilities",
                    "clientInfo",
                    "requestId",
                    "progressToken",
                ],
                rng.randrange(4),
            )
        }
    elif roll < 0.85:
        message["params"] = values.value()
    return Case(f"params {method}", _body(message))


def index_tool_case(rng: random.Random, values: Values) -> Case:
    name = rng.choice(["IndexSearch", "IndexRead", "echo__echo", "echo__add", "nope__x"])
    keys = {
        "IndexSearch": ["queries", "source", "limit"],
        "IndexRead": ["label", "offset", "limit"],
        "echo__echo": ["text"],
        "echo__add": ["a", "b"],
        "nope__x": ["x"],
    }[name]
    arguments = {key: values.value() for key in keys if rng.random() < 0.8}
    if name == "IndexSearch" and rng.random() < 0.5:
        arguments["queries"] = [values.text() for _ in range(rng.randrange(1, 25))]
    params = {"name": name, "arguments": arguments}
    message = {
        "jsonrpc": "2.0",
        "id": rng.randrange(10**9),
        "method": "tools/call",
        "params": params,
    }
    return Case(f"tools/call {name if name.startswith('Index') else 'upstream'}", _body(message))


def import_case(rng: random.Random, values: Values) -> Case:
    entry = {
        key: values.value()
        for key in rng.sample(["command", "args", "env", "cwd", "url", "headers", "type"], 3)
    }
    if rng.random() < 0.5:
        entry["command"] = rng.choice(["npx", "", "/bin/true", values.text()])
    top = rng.choice(["mcpServers", "servers", "mcp", values.text()[:10]])
    document = {top: {values.text()[:30]: entry for _ in range(rng.randrange(1, 3))}}
    document = rng.choice([document, document, values.value(), {top: values.value()}])
    text = _body(document)
    if rng.random() < 0.1:
        text = text[: rng.randrange(len(text) + 1)]
    if rng.random() < 0.05:
        text = b'{"mcpServers":' * 5_000
    return Case("import file", text)


GENERATORS = [
    (0.3, envelope_case),
    (0.3, params_case),
    (0.25, index_tool_case),
    (0.15, import_case),
]


def generate(count: int, seed: int) -> list[Case]:
    """`count` cases from `seed`, in the shares of GENERATORS."""
    rng = random.Random(seed)
    values = Values(rng)
    weights = [share for share, _ in GENERATORS]
    makers = [maker for _, maker in GENERATORS]
    return [rng.choices(makers, weights)[0](rng, values) for _ in range(count)]


def check_import(case: Case) -> str:
    """The parser's answer to one import file, as an outcome."""
    from gateway.upstream_config.config_files import ConfigFileError, parse_config

    try:
        parse_config(case.payload.decode("utf-8", "replace"), source="fuzz.json")
    except ConfigFileError:
        return "ConfigFileError"
    except Exception as error:  # the parser must name what is wrong, never crash
        return f"crash {type(error).__name__}"
    return "parsed"


def outcome_of(status: int, text: str) -> str:
    """Group a response: status, then the JSON-RPC error code or `result`."""
    if status >= 500:
        return "5xx"
    data = text
    if "data:" in text:
        lines = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        data = lines[-1] if lines else ""
    try:
        message = json.loads(data) if data.strip() else {}
    except ValueError:
        return f"{status} (not JSON)"
    if isinstance(message, dict) and "error" in message:
        return f"{status} error {message['error'].get('code')}"
    if isinstance(message, dict) and "result" in message:
        is_error = isinstance(message["result"], dict) and message["result"].get("isError")
        return f"{status} result" + (" (tool error)" if is_error else "")
    return f"{status}"


async def open_session(live: LiveGateway, token: str) -> dict:
    async with live.http(token) as http:
        opened = await http.post(live.url, json=INITIALIZE, headers={"Accept": ACCEPT})
        headers = {
            "Accept": ACCEPT,
            "Content-Type": "application/json",
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-06-18",
        }
        notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(live.url, json=notice, headers=headers)
    return headers


async def run_http(live: LiveGateway, token: str, cases: list[Case], concurrency: int) -> Counter:
    """POST the cases on one session; (kind, outcome) -> count."""
    headers = await open_session(live, token)
    outcomes: Counter = Counter()
    limit = asyncio.Semaphore(concurrency)
    async with live.http(token) as http:

        async def post(case: Case) -> None:
            async with limit:
                try:
                    response = await asyncio.wait_for(
                        http.post(live.url, content=case.payload, headers=headers), HANG_SECONDS
                    )
                    outcome = outcome_of(response.status_code, response.text)
                except TimeoutError:
                    outcome = "hang"
                outcomes[case.kind, outcome] += 1

        await asyncio.gather(*(post(case) for case in cases))
    return outcomes


def run_all(live: LiveGateway, token: str, cases: list[Case], concurrency: int = 6) -> Counter:
    """Every case, HTTP ones against `live`; (kind, outcome) -> count."""
    imports = [case for case in cases if case.kind == "import file"]
    outcomes = Counter((case.kind, check_import(case)) for case in imports)
    posted = [case for case in cases if case.kind != "import file"]
    outcomes.update(asyncio.run(run_http(live, token, posted, concurrency)))
    return outcomes


def failures(outcomes: Counter) -> int:
    return sum(n for (_, outcome), n in outcomes.items() if outcome.startswith(FAILURES))


def table(outcomes: Counter) -> str:
    by_kind: dict[str, Counter] = {}
    for (kind, outcome), count in outcomes.items():
        by_kind.setdefault(kind, Counter())[outcome] += count
    rows = []
    for kind in sorted(by_kind):
        counted = by_kind[kind]
        shown = ", ".join(f"{outcome}: {n:,}" for outcome, n in counted.most_common())
        rows.append([kind, f"{sum(counted.values()):,}", shown])
    total = sum(outcomes.values())
    five = sum(n for (_, o), n in outcomes.items() if o == "5xx")
    hangs = sum(n for (_, o), n in outcomes.items() if o == "hang")
    crashes = sum(n for (_, o), n in outcomes.items() if o.startswith("crash"))
    rows.append(["**all**", f"**{total:,}**", f"5xx: {five}, hangs: {hangs}, crashes: {crashes}"])
    return _docs.markdown_table(["cases", "count", "outcomes (count)"], rows, "lrl")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    machine = _docs.machine()  # its load average is the one before the run
    cases = generate(args.cases, args.seed)
    with gateway_databases_ready(), tempfile.TemporaryDirectory(prefix="localrouter-fuzz-") as tmp:
        live = start_gateway(
            Path(tmp), [stdio_upstream("echo", "echo_server.py")], [{"name": "fuzz"}]
        )
        try:
            outcomes = run_all(live, live.tokens["fuzz"], cases)
        finally:
            stop_gateway(live)
    report = "\n\n".join(
        [
            f"Machine: {machine}. Shared with other work (run under `nice`).",
            f"`benchmarks/fuzz.py --cases {args.cases} --seed {args.seed}`: "
            "a 5xx, a hang (no answer in 20 s) or a parser crash would be a failure.",
            table(outcomes),
        ]
    )
    print(report)
    if not args.no_docs:
        _docs.write_section(SECTION, report, docs=RELIABILITY)
    if failures(outcomes):
        sys.exit(1)


if __name__ == "__main__":
    main()
