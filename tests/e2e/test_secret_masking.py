"""Through daphne with the SDK's client: credentials in a real upstream's tool results arrive
masked in small results, in a large result's placeholder, in IndexSearch hits and IndexRead
reads, and are counted (never kept) in the session report and the audit trail; a client with
`mask_secrets` off gets them as sent."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from gateway.operations.audit.models import AuditEvent
from indexing.reports.models import SessionRecord
from tests.e2e.live import running_gateway, stdio_upstream
from tests.e2e.test_response_indexing import read_everything
from tests.e2e.test_session_lifecycle import wait_for
from tests.fixtures import secret_corpus

pytestmark = pytest.mark.anyio
SECRETS = secret_corpus.secrets()
GITHUB = next(item for item in SECRETS if item.kind == "github token")
LABEL = re.compile(r'indexed as "(secrets__big_log:\d+)"')
HEADER_LINES = re.compile(r"^\[Response compressed — \d+ bytes, (\d+) lines")
LOG_LINES = 2000


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    clients = [
        {"name": "guarded", "set": {"catalog_indexing_enabled": False}},
        {"name": "plain", "set": {"catalog_indexing_enabled": False, "mask_secrets": False}},
    ]
    with running_gateway(
        tmp_path_factory.mktemp("secrets"),
        [stdio_upstream("secrets", "secrets_server.py")],
        clients,
    ) as live:
        yield live


def fragments(secret: str) -> list[str]:
    """The pieces of a secret that must not show anywhere (its lines, split at real or
    escaped line ends)."""
    return [piece for piece in re.split(r"\n|\\n", secret) if len(piece) >= 8]


def leaks(text: str) -> list[str]:
    """The kinds of the corpus secrets of which some piece is in `text`."""
    return [item.kind for item in SECRETS if any(part in text for part in fragments(item.secret))]


def masks(text: str) -> Counter[str]:
    return Counter(re.findall(r"\[masked: ([a-z0-9 ]+)\]", text))


async def test_a_small_result_arrives_masked_in_its_text_and_structured_content(live):
    async with live.client("guarded") as client:
        result = await client.call_tool("secrets__config_file", {})
    text = result.content[0].text
    assert leaks(text) == [] and leaks(str(result.structured_content)) == []
    assert masks(text) == {
        "github token": 1,
        "aws access key id": 1,
        "aws secret key": 1,
        "url credentials": 1,
    }
    assert "Authorization: token [masked: github token]" in text and "LOG_LEVEL=info" in text
    assert result.structured_content == {"result": text}


async def test_an_embedded_text_resource_and_a_resource_read_arrive_masked(live):
    async with live.client("guarded", mode="2026-07-28") as client:
        result = await client.call_tool("secrets__env_resource", {})
        read = await client.read_resource("fixture://deploy.env")
    assert result.content[1].resource.text == "Authorization: Bearer [masked: jwt]"
    text = read.contents[0].text
    assert leaks(text) == [] and masks(text)["github token"] == 1
    async with live.client("plain") as client:
        read = await client.read_resource("fixture://deploy.env")
    assert GITHUB.text in read.contents[0].text


async def test_a_large_result_is_masked_in_its_placeholder_search_hits_and_reads(live):
    async with live.client("guarded") as client:
        result = await client.call_tool("secrets__big_log", {"lines": LOG_LINES})
        placeholder = result.content[0].text
        label = LABEL.search(placeholder).group(1)
        hits = (
            (
                await client.call_tool(
                    "IndexSearch",
                    {
                        "queries": ["credential seen PRIVATE KEY", "aws_secret_access_key"],
                        "source": label,
                    },
                )
            )
            .content[0]
            .text
        )
        lines = await read_everything(client, label)
    assert "startup: Authorization: token [masked: github token]" in placeholder
    assert leaks(placeholder) == [] and leaks(hits) == []
    assert "credential seen: " in hits and masks(hits)
    read = "\n".join(lines)
    assert leaks(read) == []
    expected = Counter(item.kind for item in SECRETS) + Counter({"github token": 1})
    assert masks(read) == expected
    # Line numbers are those of the text as sent: masking keeps every line end.
    assert int(HEADER_LINES.match(placeholder).group(1)) == len(lines)


async def test_with_mask_secrets_off_the_client_gets_the_credentials_as_sent(live):
    async with live.client("plain") as client:
        small = (await client.call_tool("secrets__config_file", {})).content[0].text
        placeholder = (
            (await client.call_tool("secrets__big_log", {"lines": LOG_LINES})).content[0].text
        )
        read = "\n".join(await read_everything(client, LABEL.search(placeholder).group(1)))
    assert GITHUB.text in small and GITHUB.text in placeholder and not masks(read)
    assert all(item.secret in read for item in SECRETS)


async def test_what_was_masked_is_counted_in_the_report_and_audit_trail_never_kept(live):
    async with live.client("guarded") as client:
        await client.call_tool("secrets__config_file", {})
        await client.call_tool("secrets__config_file", {})

    def record_counts() -> dict | None:
        records = SessionRecord.objects.filter(client_label="guarded", call_count=2)
        record = records.exclude(ended_at=None).first()
        return record and record.guardrails

    counts = await wait_for(lambda: live.orm(record_counts))
    assert counts == {
        "masked:github token": 2,
        "masked:aws access key id": 2,
        "masked:aws secret key": 2,
        "masked:url credentials": 2,
    }
    rows = await wait_for(
        lambda: live.orm(
            lambda: list(
                AuditEvent.objects.filter(client_name="guarded", name="config_file").values_list(
                    "guardrails", flat=True
                )
            )
        )
    )
    assert all(row["masked:github token"] == 1 for row in rows)
    log = live.log()
    assert "masked 4 credential(s) in a result of secrets/config_file" in log
    assert leaks(log) == []
    everything_stored = live.orm(
        lambda: str(list(SessionRecord.objects.values())) + str(list(AuditEvent.objects.values()))
    )
    assert leaks(everything_stored) == []
