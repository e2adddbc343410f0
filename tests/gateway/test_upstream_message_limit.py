"""A stdio upstream's messages are read in linear time, and one over the limit stops it cleanly."""

import anyio
import pytest

from gateway.upstreams import UpstreamConnection, UpstreamError
from gateway.upstreams.message_lines import MessageLines, TooLarge
from tests.fixtures.processes import child_pids, process_state
from tests.fixtures.upstreams import fixture_spec

MIB = 2**20
CHUNK = 65536


class CountingChunk(bytes):
    """A chunk that counts the bytes its newline searches go over."""

    scanned = 0

    def find(self, sub, start=0, *args):  # type: ignore[override]
        found = super().find(sub, start, *args)
        CountingChunk.scanned += (found + 1 if found >= 0 else len(self)) - start
        return found


def test_a_100_mb_message_is_searched_once_and_comes_out_whole():
    size = 100 * MIB
    lines = MessageLines(limit=128 * MIB)
    CountingChunk.scanned = 0
    found = []
    for offset in range(0, size, CHUNK):
        found += lines.feed(CountingChunk(b"x" * min(CHUNK, size - offset)))
    found += lines.feed(CountingChunk(b"\n{}\n"))
    assert [len(m) for m in found] == [size, 2]
    assert found[0] == b"x" * size
    # Every byte looked at once: the SDK's reader re-split its whole buffer on each chunk.
    assert CountingChunk.scanned == size + 4


def test_a_message_over_the_limit_is_reported_once_and_skipped_to_its_end():
    lines = MessageLines(limit=MIB)
    found = lines.feed(b'{"a": 1}\n' + b"x" * (MIB - 5))
    assert found == [b'{"a": 1}']
    held = []
    for _ in range(40):  # 2.5 MiB more of the same message
        found += lines.feed(b"x" * CHUNK)
        held.append(lines.pending)
    found += lines.feed(b"xx\n" + b'{"b": 2}\n')
    assert found == [b'{"a": 1}', TooLarge(MIB), b'{"b": 2}']
    assert max(held) <= MIB and lines.pending == 0


@pytest.mark.anyio
async def test_a_response_over_the_limit_fails_every_waiting_call_and_the_upstream_restarts():
    before = child_pids()
    connection = UpstreamConnection(fixture_spec(name="bulky", max_message_bytes=MIB, timeout=30))
    try:
        await connection.start()
        (first,) = child_pids() - before
        errors: list[UpstreamError] = []

        async def waiting_call() -> None:
            with pytest.raises(UpstreamError) as caught:
                await connection.call_tool("sleep", {"seconds": 20})
            errors.append(caught.value)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiting_call)
                with pytest.raises(UpstreamError) as caught:
                    await connection.call_tool("big_text", {"size": 5_000_000})
        errors.append(caught.value)
        for error in errors:
            assert "more than 1 MiB" in error.message
            assert "LOCALROUTER_UPSTREAM_MAX_MESSAGE_MIB" in error.message
        with anyio.fail_after(20):  # the old process is stopped (its exit polled, then reaped)
            while process_state(first) is not None:
                await anyio.sleep(0.05)
        result = await connection.call_tool("echo", {"text": "after"})
        assert result.content[0].text == "after"
        assert first not in child_pids()
    finally:
        await connection.aclose()
    assert child_pids() == before


@pytest.mark.anyio
async def test_a_large_response_under_the_limit_arrives_whole():
    connection = UpstreamConnection(fixture_spec(name="large", max_message_bytes=8 * MIB))
    try:
        result = await connection.call_tool("big_text", {"size": 3_000_000})
        assert result.content[0].text == "x" * 3_000_000
    finally:
        await connection.aclose()
