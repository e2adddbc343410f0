"""GET /metrics through daphne: exact counts after known calls, and who may scrape them."""

import re
import uuid

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.live import INITIALIZE, running_gateway, stdio_upstream
from tests.e2e.scrape import METRICS_TOKEN, Samples, metrics_url, samples, scrape
from tests.e2e.test_session_lifecycle import records, wait_for

pytestmark = pytest.mark.anyio
ACCEPT = "application/json, text/event-stream"
LABEL = re.compile(r'indexed as "([^"]+)"')
CALLS = "localrouter_tool_calls_total"


@pytest.fixture(scope="module")
def metered(tmp_path_factory):
    with running_gateway(
        tmp_path_factory.mktemp("metrics"),
        [stdio_upstream("echo", "echo_server.py")],
        [
            {
                "name": "quentin-zx",
                "set": {"catalog_indexing_enabled": False, "response_threshold": 2048},
            },
            {"name": "planned", "set": {"catalog_threshold": 1024}},
        ],
        LOCALROUTER_METRICS_TOKEN=METRICS_TOKEN,
    ) as live:
        yield live


async def test_a_known_sequence_of_calls_is_counted_exactly(metered):
    secret = f"argument-{uuid.uuid4().hex}"
    made_up = f"echo__made_up_{uuid.uuid4().hex}"
    before = samples(metered.url)
    async with metered.client("quentin-zx") as client:
        for _ in range(3):
            assert not (await client.call_tool("echo__echo", {"text": secret})).is_error
        big = await client.call_tool("echo__big_text", {"size": 20_000})
        label = LABEL.search(big.content[0].text).group(1)
        assert (await client.call_tool("echo__fail", {"message": secret})).is_error
        with pytest.raises(MCPError):
            await client.call_tool(made_up, {"text": secret})
        assert not (await client.call_tool("IndexSearch", {"queries": ["xxxx"]})).is_error
        assert not (await client.call_tool("IndexRead", {"label": label, "limit": 1})).is_error
        async with metered.http("lr_not-a-token") as http:
            refused = await http.post(metered.url, json=INITIALIZE, headers={"Accept": ACCEPT})
            assert refused.status_code == 401
        async with metered.http(metered.tokens["quentin-zx"]) as http:
            headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
            malformed = await http.post(metered.url, content=b'{"jsonrpc": ', headers=headers)
            assert malformed.status_code == 400
        answer = scrape(metered.url)
    assert answer.status_code == 200
    after = Samples.parse(answer.text)

    def grew(name: str, **labels: str) -> float:
        return after.value(name, **labels) - before.value(name, **labels)

    assert grew(CALLS, upstream="echo", tool="echo", outcome="ok") == 3
    assert grew(CALLS, upstream="echo", tool="big_text", outcome="ok") == 1
    assert grew(CALLS, upstream="echo", tool="fail", outcome="error") == 1
    assert grew(CALLS, upstream="", tool="", outcome="unknown") == 1
    assert grew(CALLS, upstream="", tool="IndexSearch", outcome="ok") == 1
    assert grew(CALLS, upstream="", tool="IndexRead", outcome="ok") == 1
    assert grew("localrouter_refusals_total", reason="auth") == 1
    assert grew("localrouter_refusals_total", reason="bad_request") == 1
    assert grew("localrouter_refusals_total", reason="limit") == 0
    assert grew("localrouter_responses_indexed_total") == 1
    assert grew("localrouter_index_searches_total") == 1
    assert grew("localrouter_index_reads_total") == 1
    duration = "localrouter_call_duration_seconds_count"
    assert grew(duration, kind="tool", upstream="echo") == 5
    assert grew(duration, kind="tool", upstream="") == 1
    assert grew(duration, kind="index", upstream="") == 2
    received = grew("localrouter_upstream_received_bytes_total", upstream="echo")
    delivered = grew("localrouter_client_delivered_bytes_total", upstream="echo")
    assert received > 20_000 > delivered > 0  # the big text reached the client as a placeholder
    assert grew("localrouter_client_delivered_bytes_total", upstream="") > 0
    assert after.value("localrouter_live_sessions") == 1
    assert after.value("localrouter_upstream_state", upstream="echo", state="connected") == 1
    # Labels carry no arguments, made-up names, client names or tokens.
    for text in (secret, made_up, "quentin-zx", metered.tokens["quentin-zx"], METRICS_TOKEN):
        assert text not in answer.text

    def no_session_left() -> bool:
        return samples(metered.url).value("localrouter_live_sessions") == 0

    await wait_for(no_session_left)


async def test_catalog_bytes_saved_are_those_of_the_session_report(metered):
    before = samples(metered.url).value("localrouter_catalog_saved_bytes_total")
    async with metered.client("planned") as client:
        assert "echo__echo" not in {tool.name for tool in (await client.list_tools()).tools}
    saved = samples(metered.url).value("localrouter_catalog_saved_bytes_total") - before

    def reported():
        rows = [r for r in records(metered) if r["client"] == "planned" and r["ended"]]
        return rows[0] if rows else None

    row = await wait_for(reported)
    catalog_before, catalog_after = row["catalog"]
    assert saved == catalog_before - catalog_after > 0


async def test_a_wrong_or_missing_token_gets_401_and_nothing_else(metered):
    for token in (None, "wrong-token-0123456789", METRICS_TOKEN + "x", METRICS_TOKEN[:-1]):
        answer = scrape(metered.url, token)
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "localrouter_" not in answer.text and len(answer.text) < 40
    assert METRICS_TOKEN not in metered.log()


async def test_only_get_scrapes(metered):
    headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    answer = httpx2.post(metrics_url(metered.url), headers=headers, timeout=30)
    assert answer.status_code == 405


async def test_without_a_metrics_token_there_is_no_metrics_endpoint(live):
    for token in (None, METRICS_TOKEN):
        assert scrape(live.url, token).status_code == 404
