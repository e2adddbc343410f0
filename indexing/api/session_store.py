"""A session's store: made bounded, given its client's catalog, searched by meaning too.

What a gateway session's index needs of the engine: the store, the catalog indexed once per
client and copied into each session's store, and the ranker that fuses in embeddings.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from indexing.api.background import log_failure
from indexing.api.catalog_documents import CATALOG_PREFIX
from indexing.api.response_embeddings import ResponseEmbeddings
from indexing.engine.catalog_chunks import chunk_catalog_document
from indexing.engine.hybrid import CatalogVectors, embedder, hybrid_hits
from indexing.engine.search import Ranked, Ranker
from indexing.engine.store import Hit, SessionStore

__all__ = [
    "CatalogTemplate",
    "Hit",
    "Ranker",
    "SessionStore",
    "hybrid_ranker",
    "index_documents",
]

logger = logging.getLogger(__name__)


def index_documents(documents: list[tuple[str, str]], store: SessionStore) -> SessionStore:
    """Add the catalog documents `store` lacks; blocking."""
    known = set(store.labels(prefix=CATALOG_PREFIX)) | set(store.evicted_labels(CATALOG_PREFIX))
    missing = [
        (label, chunk_catalog_document(text)) for label, text in documents if label not in known
    ]
    store.add_documents(missing, tool="catalog", trigrams=False)
    return store


class CatalogTemplate:
    """One client's catalog at one catalog version, indexed once; each session gets a copy.

    `max_bytes` bounds the store (as every session's), `model_dir` holds the embedding model,
    `vectors_dir` (if any) the catalog vectors kept on disk by content digest.
    """

    def __init__(
        self, *, max_bytes: int, model_dir: Path | None, vectors_dir: Path | None = None
    ) -> None:
        self.max_bytes = max_bytes
        self.model_dir = model_dir
        self.vectors_dir = vectors_dir
        self._task: asyncio.Future[SessionStore] | None = None
        self._vectors: asyncio.Future[CatalogVectors | None] | None = None

    def ready_vectors(self, documents: list[tuple[str, str]]) -> CatalogVectors | None:
        """The catalog's embeddings for hybrid search once computed (in the background).

        None while they are computed (seconds of CPU for a few hundred tools), without a
        model, or when computing them failed: searches then rank by keywords alone.
        """
        if self._vectors is None:
            self._vectors = asyncio.ensure_future(asyncio.to_thread(self._embed, documents))
            self._vectors.add_done_callback(log_failure(logger, "catalog embeddings failed"))
        if not self._vectors.done() or self._vectors.cancelled():
            return None
        return None if self._vectors.exception() else self._vectors.result()

    def vectors_pending(self) -> bool:
        """Whether the catalog's embeddings are being computed right now."""
        return self._vectors is not None and not self._vectors.done()

    async def copy(self, documents: list[tuple[str, str]]) -> SessionStore:
        """A store of its own holding the indexed catalog (indexed on first use)."""
        if self._task is None:
            self._task = asyncio.ensure_future(asyncio.to_thread(self._index, documents))
        template = await asyncio.shield(self._task)
        return template.copy()

    def _index(self, documents: list[tuple[str, str]]) -> SessionStore:
        return index_documents(documents, SessionStore(max_bytes=self.max_bytes))

    def _embed(self, documents: list[tuple[str, str]]) -> CatalogVectors | None:
        model = embedder(self.model_dir)
        return CatalogVectors(documents, model, self.vectors_dir) if model is not None else None


CATALOG_NOT_READY = (
    "Ranked by keywords alone: the catalog's vectors are still being computed; the same "
    "search then also matches by meaning."
)


def hybrid_ranker(
    store: SessionStore,
    catalog: CatalogVectors | None,
    responses: ResponseEmbeddings,
    catalog_pending: bool = False,
) -> Ranker:
    """Catalog searches (`source` under `mcp/`) fuse in the catalog's embeddings, other
    searches those of the responses they cover, each once computed; until then keywords
    alone rank, and the answer says so (`catalog_pending`: the catalog's are computed)."""

    def rank(queries: list[str], source: str | None, limit: int) -> Ranked:
        if source is not None and source.startswith(CATALOG_PREFIX):
            if catalog is not None:
                return Ranked(hybrid_hits(store, catalog, queries, source, limit))
            note = CATALOG_NOT_READY if catalog_pending else None
            return Ranked([store.search(q, source=source, limit=limit) for q in queries], note)
        if (ranked := responses.search(store, queries, source, limit)) is not None:
            return ranked
        return Ranked([store.search(query, source=source, limit=limit) for query in queries])

    return rank
