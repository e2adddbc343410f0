"""A request reaching the worker that does not own its session is served by the owner.

Two in-process workers share the machine's Redis (owners and the channel layer), as two
daphne workers behind a balancer do; tests/e2e/test_several_workers.py runs real ones.
"""

import asyncio
import logging
import os
import re
import uuid

import anyio
import pytest
import redis.asyncio as redis
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer
from prometheus_client import REGISTRY
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gateway.http import exchange, heartbeat
from gateway.http.heartbeat import Heartbeat
from localrouter import config
from tests.inprocess.asgi_http import (
    Exchange,
    call,
    hanging_call,
    once_the_id_is_free,
    open_session,
    post,
    request,
    request_headers,
    sdk_client,
)
from tests.inprocess.database import add_client, add_upstream, echo_http_upstream
from tests.inprocess.workers import Worker, receiving

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]
REDIS = os.environ.get("TEST_REDIS_URL")
LISTING = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
LABEL = re.compile(r'indexed as "([^"]+)"')


@pytest.fixture
async def workers(settings, monkeypatch):
    """Two workers (first, second) with REDIS_URL set, closed at the end."""
    if not REDIS:
        pytest.skip("TEST_REDIS_URL is not set (CI sets it to the machine's Redis)")
    monkeypatch.setenv("REDIS_URL", REDIS)
    # A small channel layer: a burst of forwarded requests fills it.
    monkeypatch.setenv("LOCALROUTER_CHANNEL_CAPACITY", "10")
    settings.REDIS_URL = REDIS
    settings.CHANNEL_LAYERS = config.channel_layers()
    settings.UPSTREAM_START_BUDGET = 120
    settings.FORWARD_HEARTBEAT_SECONDS = 0.2
    # Owners of this test only: other runs may share the Redis database.
    prefix = f"localrouter:test-{uuid.uuid4().hex}:"
    settings.OWNERS_KEY_PREFIX = prefix + "owner:"
    monkeypatch.setattr(heartbeat, "WORKER_PREFIX", prefix + "worker:")
    monkeypatch.setattr(exchange, "get_gateway", receiving.get)
    both = (Worker(), Worker())
    yield both
    for worker in both:
        await worker.gateway.aclose()
    await get_channel_layer().close_pools()


def relayed() -> float:
    sample = {"outcome": "relayed"}
    return REGISTRY.get_sample_value("localrouter_forwarded_requests_total", sample) or 0


async def test_a_session_opened_on_one_worker_is_served_by_the_other(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    before = relayed()
    assert first.gateway.host.owns(session["Mcp-Session-Id"])
    listed = await post(echo_token, LISTING, app=second.app, **session)
    added = await post(
        echo_token, call(3, "echo__add", {"a": 2, "b": 3}), app=second.app, **session
    )
    assert listed.status == 200
    assert "echo__echo" in {tool["name"] for tool in listed.json()["result"]["tools"]}
    assert added.headers["content-type"] == "application/json"
    assert added.json()["result"]["content"][0]["text"] == "5"
    assert not second.gateway.host.owns(session["Mcp-Session-Id"])
    assert not second.gateway.sessions.live()
    assert relayed() - before == 2  # counted for /metrics


async def test_a_streamed_answer_is_relayed_event_by_event(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    progress = call(4, "echo__progress", {"steps": 3}, progressToken="p")
    streamed = await post(echo_token, progress, app=second.app, **session)
    assert streamed.headers["content-type"].startswith("text/event-stream")
    messages = streamed.messages()
    assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
    assert messages[-1]["result"]["content"][0]["text"] == "done"


async def test_delete_through_the_other_worker_ends_the_session_at_its_owner(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    deleted = await request("DELETE", request_headers(echo_token, **session), app=second.app)
    assert deleted.status == 200
    gone = await post(echo_token, LISTING, app=first.app, **session)
    assert gone.status == 404
    assert not first.gateway.sessions.live()


def legacy(session_id: str) -> dict[str, str]:
    return {"Mcp_Session_Id": session_id, "MCP_Protocol_Version": "2025-06-18"}


async def test_a_burst_through_a_full_channel_layer_loses_no_call(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    texts = [f"call {number}" for number in range(40)]  # 40 requests, 10 places in the layer
    answers = await asyncio.gather(
        *(
            post(echo_token, call(10 + n, "echo__echo", {"text": t}), app=second.app, **session)
            for n, t in enumerate(texts)
        )
    )
    assert [a.status for a in answers] == [200] * len(texts)
    assert [a.messages()[-1]["result"]["content"][0]["text"] for a in answers] == texts


async def test_an_owner_whose_inbox_stays_full_gives_a_retryable_503(
    workers, echo_token, monkeypatch
):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    layer = second.gateway.forwarding.layer
    monkeypatch.setattr(second.gateway.forwarding, "timeout", 0.3)

    async def full(channel, message):
        raise ChannelFull()

    with monkeypatch.context() as patch:
        patch.setattr(layer, "send", full)
        refused = await post(echo_token, LISTING, app=second.app, **session)
    assert refused.status == 503
    assert refused.headers["retry-after"] == "1"
    assert "busy; retry shortly" in refused.error["message"]
    # Not lost: the session answers once the owner takes requests again.
    again = await post(echo_token, LISTING, app=second.app, **session)
    assert again.status == 200


async def test_redis_not_answering_who_owns_a_session_gives_a_retryable_503(
    workers, echo_token, monkeypatch
):
    first, second = workers
    session = await open_session(echo_token, app=first.app)

    async def unanswered(key):
        raise RedisTimeoutError("Timeout reading from 127.0.0.1:6379")

    monkeypatch.setattr(second.gateway.forwarding.directory, "owner", unanswered)
    refused = await post(echo_token, LISTING, app=second.app, **session)
    assert refused.status == 503
    assert refused.headers["retry-after"] == "1"


async def test_a_quiet_owner_that_still_beats_is_not_taken_for_gone(workers, monkeypatch):
    _, second = workers
    token = await add_client("alice")
    quiet = "specific.quiet!worker"  # alive in Redis, but never reads its inbox
    directory = second.gateway.forwarding.directory
    heart = Heartbeat(REDIS, 0.2)
    heart.start(quiet)
    try:
        session_id = uuid.uuid4().hex
        await directory.claim(session_id, quiet)
        monkeypatch.setattr(second.gateway.forwarding, "timeout", 1.0)  # 5 heartbeat periods
        answer = await post(token, LISTING, app=second.app, **legacy(session_id))
        assert answer.status == 503
        assert answer.headers["retry-after"] == "1"
        assert await directory.owner(session_id) == quiet
    finally:
        heart.stop()


async def test_a_session_whose_worker_died_is_unknown_at_once(workers, caplog):
    _, second = workers
    token = await add_client("alice")
    session_id = uuid.uuid4().hex
    directory = second.gateway.forwarding.directory
    await directory.claim(session_id, "specific.gone!worker")  # that worker never beat
    with caplog.at_level(logging.WARNING):
        answer = await post(token, LISTING, app=second.app, **legacy(session_id))
    assert answer.status == 404
    assert answer.error["message"] == "Session not found"
    assert await directory.owner(session_id) is None
    assert "busy" not in caplog.text


async def test_a_stopping_worker_hands_its_sessions_back_at_once(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    await first.gateway.forwarding.withdraw()
    answer = await post(echo_token, LISTING, app=second.app, **session)
    assert answer.status == 404  # the client opens a new session, on a worker that stays
    reopened = await open_session(echo_token, app=second.app)
    assert second.gateway.host.owns(reopened["Mcp-Session-Id"])


async def test_a_2026_client_of_a_dead_worker_is_taken_over(workers, echo_http):
    first, second = workers
    await add_upstream(**echo_http_upstream(echo_http.url))
    token = await add_client("hana", catalog_indexing_enabled=False)
    async with sdk_client(token, app=first.app) as client:
        await client.call_tool("echo__echo", {"text": "one"})
    await first.gateway.forwarding.stop_beating()
    async with sdk_client(token, app=second.app) as client:
        again = await client.call_tool("echo__echo", {"text": "two"})
    assert again.content[0].text == "two"
    [before], [now] = first.gateway.sessions.live(), second.gateway.sessions.live()
    assert now.key == before.key  # the client's one gateway session, now on the second


async def test_a_client_leaving_a_relayed_stream_reaches_the_owner(workers, echo_token):
    first, second = workers
    session = await open_session(echo_token, app=first.app)
    hanging = Exchange("POST", request_headers(echo_token, **session), app=second.app)
    await hanging.send_json(hanging_call(5))
    await hanging.read_until(b"notifications/progress")
    await hanging.leave()
    # The owner's copy of the exchange saw the client go and ended the call: its id is free.
    again = await once_the_id_is_free(
        lambda: post(echo_token, call(5, "echo__echo", {"text": "back"}), app=second.app, **session)
    )
    assert again.messages()[-1]["result"]["content"][0]["text"] == "back"


async def test_a_2026_client_is_served_by_the_worker_that_holds_its_index(workers, echo_http):
    first, second = workers
    await add_upstream(**echo_http_upstream(echo_http.url))
    token = await add_client("hana", response_threshold=2048, catalog_indexing_enabled=False)
    async with sdk_client(token, app=first.app) as client:
        big = await client.call_tool("echo__big_text", {"size": 20_000})
    label = LABEL.search(big.content[0].text).group(1)
    async with sdk_client(token, app=second.app) as client:
        page = await client.call_tool("IndexRead", {"label": label, "limit": 1})
    assert not page.is_error, page.content[0].text
    assert page.content[0].text.startswith("1-1: xxxx")
    [session] = first.gateway.sessions.live()
    assert session.key.startswith("client-")
    assert not second.gateway.sessions.live()


def unreachable(*args, **kwargs):
    raise RedisConnectionError("Redis is out of reach")


def claims_counted(worker: Worker, monkeypatch) -> list[str]:
    """The owner keys `worker` claims in Redis from now on, one per round trip."""
    made: list[str] = []
    directory = worker.gateway.forwarding.directory
    script = directory._claim

    async def counted(**kwargs):
        made.append(kwargs["keys"][0])
        return await script(**kwargs)

    monkeypatch.setattr(directory, "_claim", counted)
    return made


async def test_a_session_served_where_it_lives_claims_its_owner_once(
    workers, echo_token, monkeypatch
):
    first, _ = workers
    made = claims_counted(first, monkeypatch)
    session = await open_session(echo_token, app=first.app)
    for n in range(5):
        echoed = call(10 + n, "echo__echo", {"text": f"call {n}"})
        answer = await post(echo_token, echoed, app=first.app, **session)
        assert answer.messages()[-1]["result"]["content"][0]["text"] == f"call {n}"
    assert [key.rsplit(":", 1)[1] for key in made] == [session["Mcp-Session-Id"]]


async def test_a_2026_client_served_where_it_lives_claims_its_owner_once(
    workers, echo_http, monkeypatch
):
    first, _ = workers
    await add_upstream(**echo_http_upstream(echo_http.url))
    token = await add_client("hana", catalog_indexing_enabled=False)
    made = claims_counted(first, monkeypatch)
    for n in range(3):
        async with sdk_client(token, app=first.app) as client:
            for m in range(3):
                text = f"call {n}.{m}"
                echoed = await client.call_tool("echo__echo", {"text": text})
                assert echoed.content[0].text == text
    [session] = first.gateway.sessions.live()
    assert [key.rsplit(":", 1)[1] for key in made] == [session.key]


async def test_a_worker_whose_heartbeat_lapsed_forwards_to_the_one_that_took_over(
    workers, echo_http, monkeypatch
):
    first, second = workers
    await add_upstream(**echo_http_upstream(echo_http.url))
    token = await add_client("hana", catalog_indexing_enabled=False)
    async with sdk_client(token, app=first.app) as client:
        await client.call_tool("echo__echo", {"text": "one"})
    # first cannot reach Redis for longer than its heartbeat lives: its key is gone, and
    # second takes the client over.
    beating = first.gateway.forwarding.heartbeat
    life = beating.life
    with monkeypatch.context() as out_of_reach:
        out_of_reach.setattr(beating._redis, "set", unreachable)
        store = redis.from_url(REDIS)
        await store.delete(heartbeat.WORKER_PREFIX + first.gateway.forwarding.channel)
        await store.aclose()
        async with sdk_client(token, app=second.app) as client:
            await client.call_tool("echo__echo", {"text": "two"})
    # Redis is back for first: its next beat finds its key gone.
    with anyio.fail_after(10):
        while beating.life is life:
            await anyio.sleep(0.05)
    before = relayed()
    async with sdk_client(token, app=first.app) as client:
        again = await client.call_tool("echo__echo", {"text": "three"})
    assert again.content[0].text == "three"
    assert relayed() > before  # first no longer takes the client for its own
