"""The session reports read live sessions through the state the gateway handed them at
start-up: a live session's indexed responses while it lasts, nothing once it ended."""

import re

import anyio
import pytest

from gateway.runtime import running_gateway
from indexing.reports import summaries
from indexing.reports.live_state import live_state
from indexing.reports.models import SessionRecord
from tests.inprocess.asgi_http import (
    ANSWER_SECONDS,
    call,
    open_session,
    post,
    request,
    request_headers,
)

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]


async def test_the_reports_read_a_live_sessions_store_until_it_ends(echo_token):
    session = await open_session(echo_token)
    answer = await post(echo_token, call(2, "echo__big_text", {"size": 60_000}), **session)
    placeholder = answer.messages()[-1]["result"]["content"][0]["text"]
    label = re.search(r'indexed as "([^"]+)"', placeholder)[1]
    (live,) = running_gateway().sessions.live()
    record = SessionRecord(key=live.record_id)  # the reports read only its key

    content = await anyio.to_thread.run_sync(summaries.label_content, record, label, "1", 1)
    assert content.alive and content.text.startswith("1-1: xxx")  # one long line, in parts
    assert live_state().live_store(live.record_id) is live.index.store
    assert live_state().live_store("no such record") is None

    deleted = await request("DELETE", request_headers(echo_token, **session))
    assert deleted.status == 200
    with anyio.fail_after(ANSWER_SECONDS):
        while live_state().live_store(live.record_id) is not None:
            await anyio.sleep(0.01)  # the SDK ends the session after answering
    ended = summaries.label_content(record, label, None, None)
    assert ended == summaries.LabelContent(alive=False)
    assert await anyio.to_thread.run_sync(live_state().upstream_names) == ["echo"]
    health = await anyio.to_thread.run_sync(live_state().upstream_health)
    assert [(row.name, row.state) for row in health] == [("echo", "connected")]
