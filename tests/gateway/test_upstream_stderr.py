"""An upstream's stderr reaches the gateway's log line by line, never with a secret in it, and
never costs more than a bounded share of memory or log."""

import logging
import os
import threading
import tracemalloc

import anyio
import pytest

from gateway.upstreams import UpstreamConnection, stderr, stderr_tail
from tests.fixtures.upstreams import fixture_spec

SECRET = "sk-live-0123456789abcdef"


@pytest.mark.anyio
async def test_stderr_lines_are_logged_with_secret_values_redacted(caplog):
    caplog.set_level(logging.INFO, logger="gateway.upstreams.stderr")
    # A name of its own: each upstream's log budget is shared by the worker's processes of it.
    spec = fixture_spec(name="redacting", env={"API_KEY": SECRET}, timeout=10)
    connection = UpstreamConnection(spec)
    try:
        result = await connection.call_tool("complain", {"name": "API_KEY"})
        assert result.content[0].text == "complained"
        with anyio.fail_after(5):
            while not any("starting with API_KEY=" in r.getMessage() for r in caplog.records):
                await anyio.sleep(0.02)
    finally:
        await connection.aclose()
    lines = [r.getMessage() for r in caplog.records if r.name == "gateway.upstreams.stderr"]
    assert "upstream redacting: starting with API_KEY=[redacted]" in lines
    assert not any(SECRET in line for line in lines)


def _pump_bytes(name: str, write) -> None:
    """Run the relay's reader on a real pipe while a thread writes to it with `write(file)`."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb")
    writer = os.fdopen(write_fd, "wb")

    def feed() -> None:
        with writer:
            write(writer)

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        stderr._pump(fixture_spec(name=name), reader)
    finally:
        thread.join()


def test_a_50_mb_line_without_newline_is_cut_and_never_held_whole(caplog):
    caplog.set_level(logging.INFO, logger="gateway.upstreams.stderr")
    size = 50_000_000
    block = b"y" * 65536

    def write(file) -> None:
        for _ in range(size // len(block)):
            file.write(block)
        file.write(b"y" * (size % len(block)))

    tracemalloc.start()
    try:
        _pump_bytes("long-liner", write)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"the reader held {peak:,} bytes at once"
    (kept,) = stderr_tail("long-liner")
    assert kept == "y" * stderr.MAX_LINE_CHARS + " [cut: the line had 50,000,000 bytes]"
    logged = [r.getMessage() for r in caplog.records if "long-liner" in r.getMessage()]
    assert logged == [f"upstream long-liner: {kept}"]


def test_a_flood_of_lines_is_logged_up_to_the_budget_then_summed_up(caplog):
    caplog.set_level(logging.INFO, logger="gateway.upstreams.stderr")
    lines = 1000
    _pump_bytes(
        "flooder", lambda file: file.writelines(f"line {n}\n".encode() for n in range(lines))
    )
    logged = [r.getMessage() for r in caplog.records if "flooder" in r.getMessage()]
    budget = stderr.LOG_LINES_PER_WINDOW
    assert logged[:budget] == [f"upstream flooder: line {n}" for n in range(budget)]
    assert logged[budget:] == [
        f"upstream flooder: suppressed {lines - budget} stderr lines "
        f"(at most {budget} are logged every {stderr.LOG_WINDOW_SECONDS:g}s)"
    ]
    # The admin's tail keeps the last lines whether they were logged or not.
    assert stderr_tail("flooder") == [f"line {n}" for n in range(lines - stderr.TAIL_LINES, lines)]


def test_the_log_budget_opens_again_in_the_next_window_after_reporting_what_it_dropped():
    budget = stderr.LogBudget()
    allowed = [budget.admit(0.0) for _ in range(stderr.LOG_LINES_PER_WINDOW + 3)]
    assert allowed[-4:] == [(True, 0), (False, 0), (False, 0), (False, 0)]
    assert budget.admit(stderr.LOG_WINDOW_SECONDS) == (True, 3)
    assert budget.take_suppressed() == 0
