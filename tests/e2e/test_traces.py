"""Traces through daphne: a client's W3C trace context reaches the upstreams, spans are
exported over OTLP only when configured.

The upstreams are the echo fixture over stdio and over Streamable HTTP; its `trace_context`
tool answers with its request's `_meta` and (over HTTP) its `traceparent` header. The
client sends its trace context in the request's `_meta` (as the 2026-07-28 revision says)
or in the /mcp POST's HTTP headers. The OTLP receiver is a small HTTP server this test
starts on loopback.
"""

import hashlib
import json

import pytest
from mcp.shared.exceptions import MCPError

from tests.e2e.live import running_gateway, stdio_upstream
from tests.fixtures.otlp_receiver import ReceivedSpan, running_otlp_receiver

pytestmark = pytest.mark.anyio

MODES = ["legacy", "2026-07-28"]
UPSTREAMS = ["echo", "echohttp"]
CLIENT_SPAN_ID = "00f067aa0ba902b7"
SECRET_ARGUMENT = "an-argument-no-span-may-carry"
SERVER, CLIENT = 2, 3  # OTLP span kinds


def traceparent(trace_id: str) -> str:
    return f"00-{trace_id}-{CLIENT_SPAN_ID}-01"


def trace_id_for(*parts: str) -> str:
    """A distinct trace id per test case (32 hex digits)."""
    return hashlib.sha256(" ".join(parts).encode()).hexdigest()[:32]


def ids(header: str) -> tuple[str, str]:
    """(trace id, parent span id) of a `traceparent` value."""
    _version, trace_id, span_id, _flags = header.split("-")
    return trace_id, span_id


async def seen_upstream(client, upstream: str, trace_id: str | None = None) -> dict:
    """What the upstream's `trace_context` tool saw, with the trace context in `_meta`
    (or none, when the client's HTTP headers carry it)."""
    meta = {"traceparent": traceparent(trace_id)} if trace_id else None
    result = await client.call_tool(f"{upstream}__trace_context", {}, meta=meta)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def upstreams(echo_http) -> list[dict]:
    return [
        stdio_upstream("echo", "echo_server.py"),
        {"name": "echohttp", "transport": "http", "url": echo_http.url},
    ]


CLIENTS = [{"name": "alice", "set": {"catalog_indexing_enabled": False}}]


@pytest.fixture(scope="module")
def plain(tmp_path_factory, echo_http):
    """A gateway with no OTEL_* variable: nothing recorded, nothing exported."""
    tmp = tmp_path_factory.mktemp("plain")
    with running_gateway(tmp, upstreams(echo_http), CLIENTS) as live:
        yield live


@pytest.fixture(scope="module")
def exporting(tmp_path_factory, echo_http):
    """A gateway exporting to an OTLP receiver on loopback, and the receiver."""
    tmp = tmp_path_factory.mktemp("exporting")
    with (
        running_otlp_receiver() as receiver,
        running_gateway(
            tmp,
            upstreams(echo_http),
            CLIENTS,
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
            OTEL_BSP_SCHEDULE_DELAY="100",  # milliseconds between batches
        ) as live,
    ):
        yield live, receiver


@pytest.mark.parametrize("upstream", UPSTREAMS)
@pytest.mark.parametrize("mode", MODES)
async def test_the_trace_in_the_requests_meta_reaches_the_upstream(plain, mode, upstream):
    trace_id = trace_id_for("meta", mode, upstream)
    async with plain.client("alice", mode=mode) as client:
        seen = await seen_upstream(client, upstream, trace_id)
    # Nothing records spans here: the client's span stays the parent, as it came.
    assert ids(seen["meta"]["traceparent"]) == (trace_id, CLIENT_SPAN_ID)
    if upstream == "echohttp":
        assert seen["headers"]["traceparent"] == seen["meta"]["traceparent"]
    else:
        assert seen["headers"]["traceparent"] is None  # stdio has no headers


@pytest.mark.parametrize("mode", MODES)
async def test_the_trace_in_the_http_headers_reaches_the_upstream(plain, mode):
    trace_id = trace_id_for("header", mode)
    headers = {"traceparent": traceparent(trace_id), "tracestate": "vendor=opaque"}
    async with plain.client("alice", mode=mode, headers=headers) as client:
        over_http = await seen_upstream(client, "echohttp")
        over_stdio = await seen_upstream(client, "echo")
    for seen in (over_http, over_stdio):
        assert ids(seen["meta"]["traceparent"]) == (trace_id, CLIENT_SPAN_ID)
        assert seen["meta"]["tracestate"] == "vendor=opaque"
    assert over_http["headers"] == {
        "traceparent": traceparent(trace_id),
        "tracestate": "vendor=opaque",
    }


async def test_a_call_without_trace_context_starts_none(plain):
    async with plain.client("alice") as client:
        seen = await seen_upstream(client, "echohttp")
    assert "traceparent" not in seen["meta"]
    assert seen["headers"]["traceparent"] is None


def in_trace(trace_id: str, names: set[str]):
    """A condition on received spans: every one of `names` has arrived in this trace."""

    def found(spans: list[ReceivedSpan]) -> bool:
        return names <= {span.name for span in spans if span.trace_id == trace_id}

    return found


@pytest.mark.parametrize("mode", MODES)
async def test_spans_of_the_exchange_the_upstream_call_and_indexing_arrive_in_the_clients_trace(
    exporting, mode
):
    live, receiver = exporting
    trace_id = trace_id_for("export", mode)
    meta = {"traceparent": traceparent(trace_id)}
    async with live.client("alice", mode=mode) as client:
        seen = await seen_upstream(client, "echohttp", trace_id)
        echoed = await client.call_tool("echo__echo", {"text": SECRET_ARGUMENT}, meta=meta)
        big = await client.call_tool("echohttp__big_text", {"size": 100_000}, meta=meta)
        found = await client.call_tool("IndexSearch", {"queries": ["xxx"]}, meta=meta)
        with pytest.raises(MCPError):
            await client.call_tool("echo__no_such_tool", {}, meta=meta)
    assert echoed.content[0].text == SECRET_ARGUMENT
    assert "indexed as" in big.content[0].text
    assert not found.is_error

    names = {
        "tools/call echohttp__trace_context",
        "MCP send tools/call trace_context",
        "tools/call echo__echo",
        "MCP send tools/call echo",
        "tools/call echohttp__big_text",
        "compress response",
        "index response",
        "tools/call IndexSearch",
        "tools/call echo__no_such_tool",
    }
    spans = [s for s in receiver.wait_for(in_trace(trace_id, names)) if s.trace_id == trace_id]
    by_name = {span.name: span for span in spans}
    exchange = by_name["tools/call echohttp__trace_context"]
    sent = by_name["MCP send tools/call trace_context"]
    assert (exchange.kind, exchange.parent_span_id) == (SERVER, CLIENT_SPAN_ID)
    assert (sent.kind, sent.parent_span_id) == (CLIENT, exchange.span_id)
    # The upstream's parent is the gateway's span for the request it received.
    assert ids(seen["meta"]["traceparent"]) == (trace_id, sent.span_id)
    assert seen["headers"]["traceparent"] == seen["meta"]["traceparent"]

    # The call's facts are on its exchange's span.
    assert exchange.attributes["localrouter.upstream"] == "echohttp"
    assert exchange.attributes["localrouter.tool"] == "trace_context"
    assert exchange.attributes["localrouter.client"] == "alice"
    assert exchange.attributes["localrouter.outcome"] == "ok"
    compressed = by_name["compress response"]
    assert compressed.parent_span_id == by_name["tools/call echohttp__big_text"].span_id
    assert compressed.attributes["localrouter.indexed"] is True
    indexed = by_name["index response"].attributes
    assert indexed["localrouter.index.original_bytes"] == 100_000
    assert str(indexed["localrouter.index.label"]).startswith("echohttp__big_text:")
    search = by_name["tools/call IndexSearch"].attributes
    assert search["localrouter.call.kind"] == "index"
    assert search["localrouter.bytes_delivered"] > 0
    unknown = by_name["tools/call echo__no_such_tool"].attributes
    assert (unknown["localrouter.outcome"], unknown["localrouter.reason"]) == (
        "unknown",
        "unknown_tool",
    )
    assert "localrouter.tool" not in unknown
    assert {span.service for span in spans} == {"localrouter"}
    # Arguments and tokens never ride on a span.
    values = " ".join(str(v) for span in spans for v in span.attributes.values())
    assert SECRET_ARGUMENT not in values
    assert live.tokens["alice"] not in values


@pytest.mark.parametrize(
    "switch", [{"OTEL_TRACES_EXPORTER": "none"}, {"OTEL_SDK_DISABLED": "true"}]
)
async def test_nothing_is_exported_when_export_is_off_and_the_trace_still_continues(
    tmp_path, echo_http, switch
):
    trace_id = trace_id_for("off", *switch)
    with running_otlp_receiver() as receiver:
        with running_gateway(
            tmp_path,
            upstreams(echo_http),
            CLIENTS,
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
            **switch,
        ) as live:
            async with live.client("alice") as client:
                seen = await seen_upstream(client, "echohttp", trace_id)
                big = await client.call_tool(
                    "echo__big_text", {"size": 100_000}, meta={"traceparent": traceparent(trace_id)}
                )
        # The gateway has stopped, which flushes whatever an exporter would have buffered.
        assert receiver.requests == 0
    assert "indexed as" in big.content[0].text
    assert ids(seen["meta"]["traceparent"]) == (trace_id, CLIENT_SPAN_ID)
