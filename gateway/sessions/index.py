"""A session's context management: its store, compressed results, catalog search.

Wraps the MCP-facing API of `indexing` (`indexing.api`) for one gateway session.
"""

from __future__ import annotations

import asyncio
import logging

import mcp_types as types
from django.conf import settings as django_settings

from clients.context_settings import EffectiveSettings
from gateway.catalog.view import Activation, CatalogView
from gateway.operations.metrics import families as metrics
from gateway.operations.spans import TracedCompressor
from indexing.api.response_embeddings import ResponseEmbeddings
from indexing.api.session_store import (
    CatalogTemplate,
    Ranker,
    SessionStore,
    hybrid_ranker,
    index_documents,
)
from indexing.api.tool_results import compress_result, index_tools, run_index_tool, text_result

logger = logging.getLogger(__name__)


def new_store() -> SessionStore:
    """An empty store, bounded as configured (`LOCALROUTER_INDEX_MAX_MIB`)."""
    return SessionStore(max_bytes=django_settings.INDEX_MAX_BYTES)


def catalog_template() -> CatalogTemplate:
    """A client's catalog template, bounded and embedded as configured."""
    return CatalogTemplate(
        max_bytes=django_settings.INDEX_MAX_BYTES,
        model_dir=django_settings.EMBEDDING_MODEL_DIR,
        vectors_dir=django_settings.CATALOG_VECTORS_DIR,
    )


class SessionIndex:
    """The store of one session, created on first use, and the index tools served from it."""

    def __init__(self, settings: EffectiveSettings) -> None:
        self.settings = settings
        self._store: SessionStore | None = None
        self._catalog_indexing: asyncio.Task | None = None
        self._catalog: tuple[CatalogTemplate, list[tuple[str, str]]] | None = None
        self._responses = ResponseEmbeddings(
            model_dir=django_settings.EMBEDDING_MODEL_DIR,
            max_bytes=django_settings.RESPONSE_VECTORS_MAX_BYTES,
            queue_cap=django_settings.RESPONSE_VECTORS_QUEUE,
            wait_seconds=django_settings.RESPONSE_VECTORS_WAIT_SECONDS,
            cpu_share=django_settings.RESPONSE_VECTORS_CPU_SHARE,
            candidates=django_settings.RESPONSE_VECTORS_CANDIDATES,
            static_vectors=django_settings.RESPONSE_STATIC_VECTORS,
        )
        self.searches = 0
        self.reads = 0

    @property
    def enabled(self) -> bool:
        return bool(self.settings.indexing_enabled)

    @property
    def store(self) -> SessionStore:
        if self._store is None:
            self._store = new_store()
        return self._store

    def labels_stats(self) -> list:
        """Statistics of the responses indexed so far."""
        return list(self._store.stats) if self._store is not None else []

    def tools(self) -> list[types.Tool]:
        """IndexSearch and IndexRead, when indexing is on."""
        if not self.enabled:
            return []
        return index_tools(self.settings.search_tool_name, self.settings.read_tool_name)

    def is_index_tool(self, name: str) -> bool:
        names = (self.settings.search_tool_name, self.settings.read_tool_name)
        return self.enabled and name in names

    def index_catalog(self, view: CatalogView, template: CatalogTemplate) -> None:
        """Bring the view's catalog into the store in the background; searches wait for it.

        A new session copies the client's indexed catalog; a session whose store already
        exists (a response came first, or the catalog changed) adds what it lacks.
        """
        documents = view.documents()
        if not documents:
            return
        self._catalog = (template, documents)
        if self.settings.vector_search:
            template.ready_vectors(documents)  # start embedding before the first search
        previous = self._catalog_indexing

        async def run() -> None:
            if previous is not None:
                await previous
            if self._store is None:
                copy = await template.copy(documents)
                if self._store is None:
                    self._store = copy
                    return
                copy.close()  # a response made the store meanwhile: its labels stay valid
            await asyncio.to_thread(index_documents, documents, self._store)

        self._catalog_indexing = asyncio.create_task(run(), name="index-catalog")

    async def call(
        self, name: str, arguments: dict | None, view: CatalogView
    ) -> tuple[types.CallToolResult, Activation]:
        """Serve IndexSearch/IndexRead; hits on deferred catalog items activate them."""
        if self._catalog_indexing is not None:
            await self._catalog_indexing
        search = name == self.settings.search_tool_name
        metrics.count_index_use(search=search)
        rank = self._hybrid_ranker() if search else None
        try:
            result, labels = await run_index_tool(
                self.store, search=search, arguments=arguments, rank=rank
            )
        finally:
            # Counted once the tool has run, with no wait before the caller counts the bytes
            # it delivers: a record flushed meanwhile never has the use without its bytes.
            if search:
                self.searches += 1
            else:
                self.reads += 1
        activation = view.activate(labels)
        if activation.kinds():
            text = f"{result.content[0].text}\n\n{activation.describe()}"
            result = text_result(text)
        return result, activation

    def _hybrid_ranker(self) -> Ranker | None:
        """With vector search on, catalog searches (`source` under `mcp/`) fuse in the
        catalog's embeddings, other searches those of the responses they cover, each once
        computed; until then (and without the model) keywords alone rank."""
        if not self.settings.vector_search:
            return None
        catalog, pending = None, False
        if self._catalog is not None:
            template, documents = self._catalog
            catalog, pending = template.ready_vectors(documents), template.vectors_pending()
        return hybrid_ranker(self.store, catalog, self._responses, pending)

    async def compress(self, name: str, result: types.CallToolResult) -> types.CallToolResult:
        """The result as the client gets it: large text indexed behind a placeholder."""
        if not self.enabled:
            return result
        compressed, compression = await compress_result(
            result,
            TracedCompressor(self.store),
            tool_name=name,
            threshold=self.settings.response_threshold,
            search_tool=self.settings.search_tool_name,
            read_tool=self.settings.read_tool_name,
        )
        if compression is not None:
            metrics.count_indexed_response()
            if self.settings.vector_search:
                self._responses.schedule(self.store, compression)  # after the placeholder
        return compressed

    async def aclose(self) -> None:
        self._responses.close()
        if self._catalog_indexing is not None:
            self._catalog_indexing.cancel()
        if self._store is not None:  # in a thread: closing waits for responses being written
            await asyncio.to_thread(self._store.close)
