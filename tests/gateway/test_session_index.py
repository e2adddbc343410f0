"""A session's store while its catalog is indexed: labels delivered stay readable."""

import asyncio
import re

import mcp_types as types
import pytest

from clients.context_settings import resolve_settings
from gateway.catalog_view import Activation
from gateway.session_index import CatalogTemplate, SessionIndex

pytestmark = pytest.mark.anyio

CATALOG = [
    ("mcp/files", "files: the server's instructions"),
    ("mcp/files/tool/read", "read (files): reads a file from the disk and returns its text"),
]


class _Catalog:
    """What a session's index reads of its catalog view."""

    def documents(self) -> list[tuple[str, str]]:
        return CATALOG

    def activate(self, labels: list[str]) -> Activation:
        return Activation()


class _HeldTemplate(CatalogTemplate):
    """Hands out its copy of the catalog only once let go."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()

    async def copy(self, documents: list[tuple[str, str]]):
        await self.go.wait()
        return await super().copy(documents)


async def _call(index: SessionIndex, name: str, arguments: dict) -> str:
    result, _ = await index.call(name, arguments, _Catalog())
    assert not result.is_error, result.content[0].text
    return result.content[0].text


async def test_a_response_indexed_while_the_catalog_is_copied_keeps_its_label() -> None:
    index = SessionIndex(resolve_settings(None, None))
    template = _HeldTemplate()
    index.index_catalog(_Catalog(), template)
    await asyncio.sleep(0)  # the catalog's indexing starts, and waits for its copy
    text = "\n".join(f"line {n} of the large file" for n in range(3000))
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    placeholder = (await index.compress("files__read", result)).content[0].text
    label = re.search(r'indexed as "([^"]+)"', placeholder)[1]
    template.go.set()
    read = await _call(index, "IndexRead", {"label": label, "offset": "2999", "limit": 2})
    assert "line 2998 of the large file" in read
    found = await _call(index, "IndexSearch", {"queries": ["reads a file"], "source": "mcp/"})
    assert "mcp/files/tool/read" in found
    await index.aclose()


async def test_indexing_the_same_catalog_again_leaves_search_working() -> None:
    index = SessionIndex(resolve_settings(None, None))
    template = CatalogTemplate()
    index.index_catalog(_Catalog(), template)
    assert "mcp/files/tool/read" in await _call(index, "IndexSearch", {"queries": ["reads a file"]})
    index.index_catalog(_Catalog(), template)  # the view was recomputed: nothing is new
    assert "mcp/files/tool/read" in await _call(index, "IndexSearch", {"queries": ["reads a file"]})
    await index.aclose()


async def test_the_store_holds_what_the_configured_bound_allows(settings) -> None:
    settings.INDEX_MAX_BYTES = 2**20  # LOCALROUTER_INDEX_MAX_MIB=1
    index = SessionIndex(resolve_settings(None, None))
    labels = []
    for number in range(2):
        text = "\n".join(f"response {number} line {n}" for n in range(30_000))  # 600 KB
        result = types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        placeholder = (await index.compress("files__read", result)).content[0].text
        labels.append(re.search(r'indexed as "([^"]+)"', placeholder)[1])
    result, _ = await index.call("IndexRead", {"label": labels[0]}, _Catalog())
    assert result.is_error and "was evicted" in result.content[0].text
    assert "response 1 line 0" in await _call(index, "IndexRead", {"label": labels[1]})
    await index.aclose()
