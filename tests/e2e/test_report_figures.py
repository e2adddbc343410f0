"""Session records count what the client really got: IndexSearch and IndexRead results as
delivered, and unknown tools and refused calls as errors."""

import re

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from indexing.api.result_size import result_size
from indexing.reports.models import SessionRecord
from tests.e2e.live import start_gateway, stdio_upstream, stop_gateway
from tests.readback import footer_offset, join_read

pytestmark = pytest.mark.anyio
LABEL = re.compile(r'indexed as "([^"]+)"')
TEXT = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(800))


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    live = start_gateway(
        tmp_path_factory.mktemp("report-figures"),
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "reader", "set": {"tool_limits": "echo__add calls_per_minute=1"}}],
    )
    try:
        yield live
    finally:
        stop_gateway(live)


def _ended_record() -> dict | None:
    record = SessionRecord.objects.filter(client_label="reader", ended_at__isnull=False).first()
    if record is None or not record.labels.exists():
        return None
    return {
        "received": record.bytes_from_upstreams,
        "delivered": record.bytes_to_client,
        "errors": record.error_count,
        "reads": record.reads,
        "searches": record.searches,
        "original": record.labels.get().original_bytes,
    }


async def ended_record(live) -> dict:
    with anyio.fail_after(30):
        while (record := await anyio.to_thread.run_sync(live.orm, _ended_record)) is None:
            await anyio.sleep(0.2)
    return record


async def read_all(client, label: str) -> list:
    """Every page of a label, following each page's `continue with offset` footer."""
    pages = [await client.call_tool("IndexRead", {"label": label, "limit": 10_000})]
    while (offset := footer_offset(pages[-1].content[0].text)) is not None:
        pages.append(
            await client.call_tool("IndexRead", {"label": label, "offset": offset, "limit": 10_000})
        )
    return pages


async def test_reads_count_as_delivered_and_unknown_or_refused_calls_as_errors(gateway):
    async with gateway.client("reader") as client:
        indexed = await client.call_tool("echo__echo", {"text": TEXT})
        label = LABEL.search(indexed.content[0].text).group(1)
        found = await client.call_tool("IndexSearch", {"queries": ["lazy dog"], "source": label})
        pages = await read_all(client, label)
        added = await client.call_tool("echo__add", {"a": 1, "b": 2})
        refused = await client.call_tool("echo__add", {"a": 1, "b": 2})
        with pytest.raises(MCPError, match="Unknown tool: echo__nothing"):
            await client.call_tool("echo__nothing", {})
    assert join_read([page.content[0].text for page in pages]) == TEXT
    assert refused.is_error and "Limit reached: calls_per_minute=1" in refused.content[0].text

    record = await ended_record(gateway)
    pulled_back = result_size(found) + sum(result_size(page) for page in pages)
    assert pulled_back > len(TEXT)  # the whole text came back, numbered
    answers = result_size(indexed) + result_size(added)  # the placeholder and a small answer
    assert record["delivered"] == answers + pulled_back
    # The saving shrinks by what the client pulled back.
    saved = record["received"] - record["delivered"]
    assert saved == (record["received"] - answers) - pulled_back
    assert record["original"] >= len(TEXT)
    assert (record["reads"], record["searches"]) == (len(pages), 1)
    assert record["errors"] == 2  # the refused call and the unknown tool
