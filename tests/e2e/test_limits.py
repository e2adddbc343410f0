"""Per-client limits through daphne: a client over its budget gets a clear refusal naming
the limit and when to retry, while other clients' calls go through."""

import re

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from clients.models import Client, GlobalSettings
from indexing.api.result_size import result_size
from tests.e2e.live import start_gateway, stdio_upstream, stop_gateway

pytestmark = pytest.mark.anyio
ERAS = ["legacy", "2026-07-28"]
TEAM_CALLS_PER_MINUTE = 2
BUDGET = 10_000
RETRY = re.compile(r"retry in (\d+) s\.$")


def _set_team_limit() -> None:
    team = GlobalSettings.load()
    team.calls_per_minute = TEAM_CALLS_PER_MINUTE
    team.save()


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    unlimited = {"calls_per_minute": 0}  # 0 overrides the team's limit: unlimited
    clients = [
        {"name": "paced", "set": {"calls_per_minute": 3}},
        {"name": "paced_modern", "set": {"calls_per_minute": 3}},
        {"name": "bystander", "set": unlimited},
        {"name": "single", "set": {**unlimited, "concurrent_calls": 1}},
        {"name": "budget", "set": {**unlimited, "bytes_per_day": BUDGET}},
        {"name": "inheriting"},  # every limit left empty: the team's calls_per_minute
        {"name": "tooled", "set": {**unlimited, "tool_limits": "echo__add calls_per_minute=1"}},
        {"name": "adjusted", "set": unlimited},
    ]
    gateway = start_gateway(
        tmp_path_factory.mktemp("limits"), [stdio_upstream("echo", "echo_server.py")], clients
    )
    try:
        gateway.orm(_set_team_limit)
        yield gateway
    finally:
        stop_gateway(gateway)


async def echo(client, text: str = "hi"):
    return await client.call_tool("echo__echo", {"text": text})


async def refused_while_one_runs(running, other, text: str = "after"):
    """`other`'s echo while `running` has a `hang` call in flight, then `other`'s first echo
    that is let through once that call was cancelled: (the refusal, the answer)."""
    started = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    with anyio.fail_after(30):  # a guard against a hang, not a measurement
        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: running.call_tool(
                    "echo__hang", {"announce": True}, progress_callback=on_progress
                )
            )
            await started.wait()
            refused = await echo(other)
            group.cancel_scope.cancel()
        # The slot is free again once the cancelled call has ended at its worker.
        while (answer := await echo(other, text)).is_error:
            assert "concurrent_calls=1" in answer.content[0].text
            await anyio.sleep(0.05)
    return refused, answer


@pytest.mark.parametrize(("name", "mode"), [("paced", "legacy"), ("paced_modern", "2026-07-28")])
async def test_calls_over_calls_per_minute_are_refused_naming_the_limit_and_the_wait(
    limited, name, mode
):
    async with limited.client(name, mode=mode) as client, limited.client("bystander") as other:
        for n in range(3):
            assert (await echo(client, f"call {n}")).content[0].text == f"call {n}"
        refused = await echo(client)
        assert refused.is_error
        message = refused.content[0].text
        assert message.startswith(f"Limit reached: calls_per_minute=3 for client {name!r}; ")
        assert 0 < int(RETRY.search(message).group(1)) <= 60
        # Another client is not held back, and the refused client's resource reads count too.
        for _ in range(5):
            assert (await echo(other)).content[0].text == "hi"
        with pytest.raises(MCPError, match="Limit reached: calls_per_minute=3"):
            await client.read_resource("fixture://hello")


async def test_a_second_call_while_one_runs_is_refused_by_concurrent_calls(limited):
    async with limited.client("single") as client:
        refused, answer = await refused_while_one_runs(client, client)
    assert refused.is_error
    assert refused.content[0].text == (
        "Limit reached: concurrent_calls=1 for client 'single' (1 running); "
        "retry when one of them has finished."
    )
    assert answer.content[0].text == "after"


async def test_bytes_per_day_counts_the_bytes_delivered(limited):
    async with limited.client("budget") as client:
        # About 6 KB each (the text and its structured copy): the second call starts under
        # the 10,000-byte budget and is delivered in full; then the day's total is over it.
        answers = [await client.call_tool("echo__big_text", {"size": 3000}) for _ in range(2)]
        refused = await echo(client)
    assert [a.content[0].text for a in answers] == ["x" * 3000] * 2
    delivered = sum(result_size(answer) for answer in answers)
    assert delivered > BUDGET
    assert refused.is_error
    message = refused.content[0].text
    assert message.startswith(
        f"Limit reached: bytes_per_day={BUDGET} for client 'budget' "
        f"({delivered} bytes delivered since 00:00 UTC); retry in "
    )
    assert message.endswith(", at 00:00 UTC.")


async def test_an_empty_client_limit_inherits_the_global_one(limited):
    async with limited.client("inheriting") as client:
        for _ in range(TEAM_CALLS_PER_MINUTE):
            assert not (await echo(client)).is_error
        refused = await echo(client)
    assert refused.content[0].text.startswith(
        f"Limit reached: calls_per_minute={TEAM_CALLS_PER_MINUTE} for client 'inheriting'; "
    )


async def test_a_per_tool_limit_holds_back_only_the_tools_it_names(limited):
    async with limited.client("tooled") as client:
        assert (await client.call_tool("echo__add", {"a": 1, "b": 2})).content[0].text == "3"
        refused = await client.call_tool("echo__add", {"a": 1, "b": 2})
        for _ in range(3):
            assert not (await echo(client)).is_error
    assert refused.content[0].text.startswith(
        "Limit reached: calls_per_minute=1 for tools matching 'echo__add' of client 'tooled'; "
    )


async def test_a_client_created_with_a_limit_on_the_command_line_is_held_to_it(limited):
    created = limited.manage("create_client", "scripted", "--set", "calls_per_minute=5")
    assert created.returncode == 0, created.stderr
    limited.tokens["scripted"] = created.stdout.strip().splitlines()[-1]
    async with limited.client("scripted") as client:
        answers = [await echo(client) for _ in range(6)]
    assert [a.is_error for a in answers] == [False] * 5 + [True]
    assert "calls_per_minute=5 for client 'scripted'" in answers[-1].content[0].text


def _limit_adjusted() -> None:
    Client.objects.filter(name="adjusted").update(calls_per_minute=1)


async def test_a_limit_set_while_a_session_is_open_applies_to_its_next_calls(limited):
    async with limited.client("adjusted") as client:
        for _ in range(3):
            assert not (await echo(client)).is_error
        await anyio.to_thread.run_sync(limited.orm, _limit_adjusted)
        # The gateway looks the client up again within seconds (its identity cache).
        with anyio.fail_after(30):
            while not (answer := await echo(client)).is_error:
                await anyio.sleep(0.2)
    assert answer.content[0].text.startswith(
        "Limit reached: calls_per_minute=1 for client 'adjusted'; "
    )
