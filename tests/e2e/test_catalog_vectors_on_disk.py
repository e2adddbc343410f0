"""A catalog's vectors are computed once it is complete, before any search, and kept on disk:
a restarted gateway reads them back instead of computing them again (its log says so)."""

import re

import pytest
from django.conf import settings

from localrouter import config
from tests.e2e.live import NODE_BIN, running_gateway, start_daphne, stop_gateway
from tests.e2e.test_session_lifecycle import wait_for
from tests.fixtures.http_server import free_port

pytestmark = pytest.mark.anyio
EVERYTHING = {
    "name": "everything",
    "transport": "stdio",
    "command": str(NODE_BIN / "mcp-server-everything"),
    "args": ["stdio"],
}
# A small catalog budget: the everything server's tools are deferred behind IndexSearch.
IVY = {"name": "ivy", "set": {"catalog_threshold": 1024, "vector_search": True}}


def _log(path) -> str:
    return path.read_text() if path.is_file() else ""


async def test_a_restarted_gateway_reads_the_catalog_vectors_back_from_disk(tmp_path):
    if not config.embedding_backend_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("no embedding model here (run `make embeddings`)")
    with running_gateway(tmp_path, [EVERYTHING], [IVY]) as live:
        async with live.client("ivy") as client:
            await client.list_tools()  # plans the catalog: complete, so embedded right away
            kept = await wait_for(
                lambda: re.search(r"catalog embeddings kept on disk: (\d+) tool", live.log()), 90
            )
        assert "catalog embeddings started" in live.log()
        assert len(list((tmp_path / "catalog-vectors").glob("*.npz"))) == 1

        stop_gateway(live)  # a restart: same data folder, nothing in memory
        port = free_port()
        live.url = f"http://127.0.0.1:{port}/mcp"
        live.log_path = tmp_path / "daphne-restarted.log"
        live.process = start_daphne(live, port, live.log_path)
        async with live.client("ivy") as client:
            await client.list_tools()
            read = await wait_for(
                lambda: re.search(r"catalog embeddings read from disk: (\d+) of (\d+)", live.log()),
                90,  # the model loads first: seconds on a loaded machine
            )
            found = await client.call_tool(
                "IndexSearch", {"queries": ["print back what I send"], "source": "mcp/"}
            )
            assert "mcp/everything/tool/echo" in found.content[0].text
        assert read.group(1) == read.group(2) == kept.group(1)
        assert "catalog embeddings started" not in live.log()  # nothing computed again
