"""A session's store while its catalog is indexed: labels delivered stay readable; its
responses searched by meaning once embedded, with vector search on."""

import asyncio
import re
import threading

import anyio
import mcp_types as types
import pytest

from clients.context_settings import resolve_settings
from gateway.catalog.view import Activation
from gateway.sessions.index import SessionIndex, catalog_template
from indexing.api import response_embeddings
from indexing.api.embedding_queue import Job, embedding_queue
from indexing.api.session_store import CatalogTemplate

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
        super().__init__(max_bytes=2**20, model_dir=None)
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
    template = catalog_template()
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


NOT_READY = "Ranked by keywords alone"


async def _searched_after_embedding(model, settings, monkeypatch) -> tuple[str, str]:
    """IndexSearch's text for a question in other words than its answer line, right after
    the placeholder and once the embedding thread has handled the response (model: what
    `embedder` gives, None when no model is installed)."""
    pytest.importorskip("numpy", reason="numpy (optional, for embeddings) not installed")
    from tests.indexing.test_response_vectors import header

    text = header(300) + "extern int crc32(const char *buffer);\n" + header(300)  # 20 KB

    settings.VECTOR_SEARCH_DEFAULT = True
    settings.RESPONSE_STATIC_VECTORS = False  # of the bundled model, not `model`'s
    monkeypatch.setattr(response_embeddings, "embedder", lambda folder: model)
    monkeypatch.setattr(response_embeddings, "embedder_unavailable", lambda folder: False)
    running, started = threading.Event(), threading.Event()
    queue = embedding_queue(settings.RESPONSE_VECTORS_QUEUE)
    queue.submit(Job("earlier", 1, lambda: (running.set(), started.wait(30)), lambda: None))
    assert await asyncio.to_thread(running.wait, 30)  # the response's turn comes after it
    index = SessionIndex(resolve_settings(None, None))
    assert index.settings.vector_search
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    placeholder = (await index.compress("zlib__read", result)).content[0].text
    label = re.search(r'indexed as "([^"]+)"', placeholder)[1]
    search = {"queries": ["check the integrity"], "source": label}
    before = await _call(index, "IndexSearch", search)
    started.set()
    with anyio.fail_after(30):  # until the queue's thread has handled the response
        while NOT_READY in (after := await _call(index, "IndexSearch", search)):
            await anyio.sleep(0.05)
    await index.aclose()
    return before, after


async def test_with_vector_search_on_a_response_is_searched_by_meaning_once_embedded(
    settings, monkeypatch
) -> None:
    from tests.indexing.test_response_vectors import ConceptModel

    before, after = await _searched_after_embedding(ConceptModel(), settings, monkeypatch)
    assert "No matches." in before  # no word in common: keywords alone find nothing
    assert f"{NOT_READY}: this response's vectors are still being computed" in before
    assert "crc32" in after.split("\n[2]")[0]  # the answer's chunk is the first hit


async def test_with_vector_search_on_and_no_model_keywords_rank(settings, monkeypatch) -> None:
    before, after = await _searched_after_embedding(None, settings, monkeypatch)
    assert before.startswith(after) and "No matches." in after  # and a note, then none


async def test_a_response_above_the_vectors_bound_is_searched_by_keywords(
    settings, monkeypatch
) -> None:
    from tests.indexing.test_response_vectors import ConceptModel

    settings.RESPONSE_VECTORS_MAX_BYTES = 10_000  # the response is 20 KB
    model = ConceptModel()
    before, after = await _searched_after_embedding(model, settings, monkeypatch)
    assert before == after and "No matches." in after
    assert model.embedded == []
