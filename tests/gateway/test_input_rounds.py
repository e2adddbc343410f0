"""2026-07-28 rounds of a call whose upstream asks the client something (input_required)."""

import asyncio
from types import SimpleNamespace

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from gateway.sessions import input_rounds
from gateway.sessions.input_rounds import InputRounds

pytestmark = pytest.mark.anyio


def ctx(request_id: int) -> SimpleNamespace:
    return SimpleNamespace(request_id=request_id, session=SimpleNamespace())


def question(text: str) -> types.CreateMessageRequest:
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(messages=[message], max_tokens=8)
    )


def reply(text: str) -> dict:
    content = {"type": "text", "text": text}
    return {"role": "assistant", "content": content, "model": "m"}


def params(state: str | None = None, responses: dict | None = None):
    return types.CallToolRequestParams(
        name="t", arguments={}, request_state=state, input_responses=responses
    )


def asking_until_cancelled():
    """An upstream call that asks the client one question, and the event set once it is
    cancelled while waiting for the answer."""
    cancelled = asyncio.Event()

    async def call(parked):
        try:
            return await parked.ask(question("q?"))
        except asyncio.CancelledError:
            cancelled.set()
            raise

    return call, cancelled


async def test_a_call_that_asks_nothing_returns_its_result_in_one_round():
    async def call(parked):
        return "done"

    assert await InputRounds().call(ctx(1), params(), call) == "done"


async def test_questions_end_a_round_and_the_answers_resume_the_same_call():
    rounds = InputRounds()
    answers = []

    async def call(parked):
        answers.append(await parked.ask(question("first?")))
        answers.append(await parked.ask(question("second?")))
        return "done"

    first = await rounds.call(ctx(1), params(), call)
    assert isinstance(first, types.InputRequiredResult)
    [(key, asked)] = first.input_requests.items()
    assert asked.params.messages[0].content.text == "first?"
    second = await rounds.call(ctx(2), params(first.request_state, {key: reply("one")}), call)
    assert isinstance(second, types.InputRequiredResult)
    assert second.request_state != first.request_state
    [(key2, asked2)] = second.input_requests.items()
    assert asked2.params.messages[0].content.text == "second?"
    last = params(second.request_state, {key2: reply("two")})
    assert await rounds.call(ctx(3), last, call) == "done"
    assert [a["content"]["text"] for a in answers] == ["one", "two"]


async def test_a_state_is_good_for_one_retry_only():
    rounds = InputRounds()

    async def call(parked):
        return await parked.ask(question("q?"))

    first = await rounds.call(ctx(1), params(), call)
    [key] = first.input_requests
    again = params(first.request_state, {key: reply("a")})
    assert (await rounds.call(ctx(2), again, call))["content"]["text"] == "a"
    with pytest.raises(MCPError, match="Invalid or expired requestState"):
        await rounds.call(ctx(3), again, call)


async def test_a_parked_call_the_client_never_resumes_is_cancelled(monkeypatch):
    monkeypatch.setattr(input_rounds, "PARK_SECONDS", 0.01)
    rounds = InputRounds()
    call, cancelled = asking_until_cancelled()

    first = await rounds.call(ctx(1), params(), call)
    await asyncio.wait_for(cancelled.wait(), 5)
    with pytest.raises(MCPError, match="Invalid or expired requestState"):
        await rounds.call(ctx(2), params(first.request_state, {}), call)


async def test_ending_the_session_cancels_its_parked_calls():
    rounds = InputRounds()
    call, cancelled = asking_until_cancelled()

    await rounds.call(ctx(1), params(), call)
    rounds.aclose()
    await asyncio.wait_for(cancelled.wait(), 5)
