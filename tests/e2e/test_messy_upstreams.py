"""Messy real-world upstream behaviour through daphne: each list on its own, quirks absorbed."""

import re

import pytest

from gateway.models import Upstream
from tests.e2e.live import ToolsChanged, running_gateway, stdio_upstream

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    upstreams = [
        stdio_upstream("notemplates", "messy_server.py", "--no-templates"),
        stdio_upstream("noprompts", "messy_server.py", "--prompts-error"),
        stdio_upstream("quirky", "raw_quirks_server.py"),
    ]
    clients = [{"name": "alice", "set": {"indexing_enabled": False}}]
    with running_gateway(tmp_path_factory.mktemp("messy"), upstreams, clients) as gateway:
        yield gateway


async def test_templates_method_not_found_means_none_and_keeps_tools_and_resources(messy):
    async with messy.client() as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "notemplates__echo" in names
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        assert "messy://note" in resources
        called = await client.call_tool("notemplates__echo", {"text": "hi"})
        assert called.content[0].text == "echo: hi"
    assert "notemplates" not in messy.log()


async def test_a_failed_prompt_list_is_reported_for_that_list_only(messy):
    async with messy.client() as client:
        listed = await client.list_tools()
        assert "noprompts__echo" in {tool.name for tool in listed.tools}
        unavailable = (listed.meta or {}).get("localrouter/unavailable", {})
        assert unavailable["noprompts"] == "prompts/list failed: the prompt store is offline"
        assert "notemplates" not in unavailable
        assert (
            "Incomplete: upstream 'noprompts': prompts/list failed: the prompt store is offline."
            in client.instructions
        )
        assert "Upstream servers: noprompts, notemplates, quirky." in client.instructions
    assert "upstream 'noprompts': prompts/list failed: the prompt store is offline" in messy.log()


async def test_a_quirky_servers_tools_all_come_through_usable(messy):
    async with messy.client() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools if "quirky" in t.name}
        exposed = sorted(tools)
        # Seven entries over four pages (the banner skipped, roots answered), one duplicate.
        assert len(exposed) == 6
        assert {"quirky__echo", "quirky__untyped", "quirky__roots", "quirky__grow"} <= set(tools)
        assert tools["quirky__echo"].description == "Echo the text back."
        assert tools["quirky__untyped"].input_schema == {"type": "object", "properties": {}}
        odd = [name for name in exposed if name.startswith(("quirky__say", "quirky__a_tool"))]
        assert len(odd) == 2
        for name in exposed:
            assert len(name) <= 64 and re.fullmatch(r"[A-Za-z0-9_.-]+", name)
        said = next(name for name in odd if name.startswith("quirky__say"))
        result = await client.call_tool(said, {"text": "hi"})
        assert result.content[0].text == 'say hello: {"text": "hi"}'
        roots = await client.call_tool("quirky__roots", {})
        assert roots.content[0].text == "[]"
    assert "lists these tool names more than once; the first of each is kept: echo" in messy.log()


async def test_an_undeclared_list_changed_notice_is_honoured(messy):
    changed = ToolsChanged()
    async with messy.client(message_handler=changed) as client:
        before = {tool.name for tool in (await client.list_tools()).tools}
        assert not any(name.startswith("quirky__grown") for name in before)
        await client.call_tool("quirky__grow", {})
        await changed.wait()
        after = {tool.name for tool in (await client.list_tools()).tools}
        assert {name for name in after - before if name.startswith("quirky__grown")}


async def test_a_sessions_listing_is_stored_for_the_admin_page(messy):
    async with messy.client() as client:
        await client.list_tools()
    stored = messy.orm(lambda: {u.name: u.last_listing for u in Upstream.objects.all()})
    assert stored["noprompts"]["via"] == "session"
    assert stored["noprompts"]["failed"] == {"prompts/list": "the prompt store is offline"}
    assert (stored["notemplates"]["tools"], stored["notemplates"]["resources"]) == (1, 1)
    assert stored["notemplates"]["failed"] == {}
    assert stored["quirky"]["tools"] >= 6  # 7 once `grow` has run
