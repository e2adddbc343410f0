"""Messy real-world upstream behaviour through daphne: each list on its own, quirks absorbed."""

import pytest

from tests.e2e.live import start_gateway, stdio_upstream, stop_gateway

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    upstreams = [
        stdio_upstream("notemplates", "messy_server.py", "--no-templates"),
        stdio_upstream("noprompts", "messy_server.py", "--prompts-error"),
        stdio_upstream("quirky", "raw_quirks_server.py"),
    ]
    clients = [{"name": "alice", "set": {"indexing_enabled": False}}]
    gateway = start_gateway(tmp_path_factory.mktemp("messy"), upstreams, clients)
    try:
        yield gateway
    finally:
        stop_gateway(gateway)


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
        assert "Upstream servers: noprompts, notemplates" in client.instructions
    assert "upstream 'noprompts': prompts/list failed: the prompt store is offline" in messy.log()
