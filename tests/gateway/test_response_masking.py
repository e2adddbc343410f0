"""ResponseMasking: a session's results masked and counted (report, audit row, metric, log),
never their content; nothing done when the client's setting is off."""

import logging
from collections import Counter

import mcp_types as types
import pytest
from prometheus_client import REGISTRY

from gateway.operations.call_monitor import CallFacts
from gateway.sessions.response_masking import ResponseMasking
from tests.fixtures import secret_corpus

pytestmark = pytest.mark.anyio
TOKEN = next(item.secret for item in secret_corpus.secrets() if item.kind == "github token")
MASKED = "localrouter_secrets_masked_total"


def facts() -> CallFacts:
    return CallFacts(
        kind="tool", client_id=1, client_name="alice", session="s", upstream="up", name="read"
    )


def result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def metric() -> float:
    return REGISTRY.get_sample_value(MASKED, {"kind": "github token"}) or 0.0


async def test_a_masked_result_is_counted_for_the_session_the_call_and_the_metric(caplog):
    session_counts: Counter[str] = Counter()
    call, before = facts(), metric()
    with caplog.at_level(logging.INFO, logger="gateway.sessions.response_masking"):
        masked = await ResponseMasking(True, session_counts).mask(
            result(f"{TOKEN} and {TOKEN}"), call
        )
    assert masked.content[0].text == "[masked: github token] and [masked: github token]"
    assert session_counts == {"masked:github token": 2} == call.guardrails
    assert metric() == before + 2
    assert "masked 2 credential(s) in a result of up/read for client 'alice'" in caplog.text
    assert TOKEN not in caplog.text


async def test_a_clean_result_is_the_same_object_and_counts_nothing():
    session_counts: Counter[str] = Counter()
    clean, call = result("nothing here"), facts()
    assert await ResponseMasking(True, session_counts).mask(clean, call) is clean
    assert not session_counts and not call.guardrails


async def test_with_the_setting_off_results_and_resources_pass_as_sent():
    masking, call = ResponseMasking(False, Counter()), facts()
    sent = result(TOKEN)
    assert await masking.mask(sent, call) is sent
    read = types.ReadResourceResult(
        contents=[types.TextResourceContents(uri="file:///a.env", text=TOKEN)]
    )
    assert masking.mask_resource(read, call) is read
    assert not call.guardrails
