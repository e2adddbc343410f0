"""Through daphne with the SDK's client: every call leaves an audit event with its facts,
never its arguments or content unless LOCALROUTER_AUDIT_ARGUMENTS asks, and then masked."""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from clients.models import Client
from gateway.operations.audit.export import event_object
from gateway.operations.audit.models import AuditEvent
from indexing.reports.models import SessionRecord
from tests.e2e.live import LiveGateway, running_gateway, stdio_upstream
from tests.e2e.test_session_lifecycle import wait_for

pytestmark = pytest.mark.anyio
CONTENT = "do-not-keep-this-text"
SECRET = "sk-live-0123456789abcdef"
UNKNOWN = "echo__" + "n" * 1000


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    clients = [{"name": "auditor", "set": {"response_threshold": 2048}}]
    with running_gateway(
        tmp_path_factory.mktemp("audit"), [stdio_upstream("echo", "echo_server.py")], clients
    ) as live:
        yield live


@pytest.fixture(scope="module")
def with_arguments(tmp_path_factory):
    with running_gateway(
        tmp_path_factory.mktemp("audit-arguments"),
        [stdio_upstream("echo", "echo_server.py")],
        [{"name": "auditor"}],
        LOCALROUTER_AUDIT_ARGUMENTS="true",
    ) as live:
        yield live


def _events() -> list[dict]:
    rows = AuditEvent.objects.exclude(kind="change").order_by("id").values()
    return [event_object(row) for row in rows]


def events(live: LiveGateway, count: int):
    """The gateway's call events once there are `count` of them, oldest first."""
    return wait_for(lambda: (found := live.orm(_events)) and len(found) >= count and found)


async def test_every_kind_of_call_leaves_an_event_with_its_facts_and_no_content(plain):
    async with plain.client("auditor") as client:
        await client.call_tool("echo__echo", {"text": CONTENT})
        big = await client.call_tool("echo__big_text", {"size": 50_000})
        assert big.content[0].text.startswith("[Response compressed")
        await client.call_tool("IndexSearch", {"queries": ["xxxx"]})
        await client.call_tool("echo__fail", {"message": CONTENT})
        with pytest.raises(MCPError):
            await client.call_tool(UNKNOWN, {"text": CONTENT})
        await client.read_resource("fixture://hello")
        await client.get_prompt("echo__greet", {"name": CONTENT})
        reference = types.PromptReference(type="ref/prompt", name="echo__greet")
        with pytest.raises(MCPError):  # the fixture server offers no completions
            await client.complete(reference, {"name": "name", "value": CONTENT})
    found = await events(plain, 8)
    assert [(e["kind"], e["upstream"], e["name"], e["outcome"], e["reason"]) for e in found] == [
        ("tool", "echo", "echo", "ok", ""),
        ("tool", "echo", "big_text", "ok", ""),
        ("index", "", "IndexSearch", "ok", ""),
        ("tool", "echo", "fail", "error", "tool_error"),
        ("tool", "", UNKNOWN[:300], "unknown", "unknown_tool"),
        ("resource", "echo", "fixture://hello", "ok", ""),
        ("prompt", "echo", "greet", "ok", ""),
        ("completion", "echo", "greet", "error", "rejected"),
    ]
    client_id = plain.orm(lambda: Client.objects.get(name="auditor").pk)
    assert {(e["client_id"], e["client_name"], e["member"]) for e in found} == {
        (client_id, "auditor", "")
    }
    [session] = {e["session"] for e in found}
    await wait_for(lambda: plain.orm(SessionRecord.objects.filter(key=session).exists))
    big = found[1]
    assert big["bytes_received"] > 50_000 > 3_000 > big["bytes_delivered"] > 0
    assert found[2]["bytes_received"] == 0 < found[2]["bytes_delivered"]
    assert all(e["duration"] >= 0 for e in found)
    assert CONTENT not in json.dumps(found) and all("arguments" not in e for e in found)


async def test_with_argument_logging_on_arguments_are_kept_with_secrets_masked(with_arguments):
    arguments = {"text": f"deploy with Bearer {SECRET} today", "api_key": SECRET}
    async with with_arguments.client("auditor") as client:
        await client.call_tool("echo__echo", arguments)
    [event] = await events(with_arguments, 1)
    assert event["arguments"] == {"text": "deploy with Bearer [redacted] today", "api_key": "***"}
    assert SECRET not in json.dumps(event)
