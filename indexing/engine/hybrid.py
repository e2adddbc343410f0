"""Hybrid catalog search: BM25 hits fused with sentence-embedding similarity.

Keyword search misses tools described in other words ("folder" for "directory");
embeddings of each catalog entry's heading and description find them. The embedding side
ranks entries by the cosine of their sentence vectors, then re-scores the first
`TOKEN_MATCHED` by cosine plus a token-level match (`indexing.engine.token_match`), which
tells apart tools whose descriptions read alike as wholes. Both rankings are cut to their
top `DEPTH` before reciprocal rank fusion (k `FUSION_K`), so a weak keyword match cannot
ride on an embedding score that every entry has; the embedding ranking weighs
`DENSE_WEIGHT` times the keyword one. On the dev split of benchmarks/catalog_hybrid.py
(166 requests over 567 real tools of 40 servers), recall@1 / recall@5: sentence cosine
alone, fused at k 60 and weight 2.5, 0.63 / 0.89; with the token match, fused at k 10 and
weight 2, 0.69 / 0.89.
Plain Python; needs `indexing.engine.embeddings` (numpy, safetensors, tokenizers, the model).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from indexing.engine.fusion import reciprocal_rank_fusion
from indexing.engine.model_folder import ModelFolderError, model_folder_ready
from indexing.engine.store import Hit, SessionStore

logger = logging.getLogger(__name__)
DEPTH = 20
DENSE_WEIGHT = 2.0
FUSION_K = 10
TOKEN_MATCHED = 60  # entries of the cosine ranking re-scored with the token match
EMBED_STEP = 32  # entries embedded at a time

# model folder -> its sentence encoder, or False when it could not be loaded
_embedders: dict[Path | None, Any] = {}
_embedder_lock = threading.Lock()
# embedded text -> (unit sentence vector, token vectors), shared by all catalogs
_vector_cache: dict[str, tuple[Any, Any]] = {}


def embedder(folder: Path | None) -> Any | None:
    """The process's sentence encoder from the model in `folder`, loaded on first use; None
    when numpy & co. or the model's files are missing (then it stays None for that folder).

    It runs on as many BLAS threads as the process allows: serving allows one
    (`gateway/serving/process_tuning.py`), which is faster for its small matrices."""
    with _embedder_lock:
        if folder not in _embedders:
            _embedders[folder] = _load_embedder(folder)
        return _embedders[folder] or None


def _load_embedder(folder: Path | None) -> Any:
    """The encoder from `folder`, or False (with a warning) when it cannot be had."""
    try:
        from indexing.engine.embeddings import Embedder
    except ImportError as error:
        logger.warning("hybrid search unavailable: %s", error)
        return False
    if not model_folder_ready(folder):
        logger.warning("hybrid search unavailable: no embedding model (see README)")
        return False

    try:
        return Embedder.from_path(folder)
    except ModelFolderError as error:
        logger.warning("hybrid search unavailable: embedding model: %s", error)
        return False


def loaded_embedder(folder: Path | None) -> Any | None:
    """The process's sentence encoder from `folder` if `embedder` loaded it already (never
    waits)."""
    return _embedders.get(folder) or None


def _embed_into_cache(missing: list[str], known: int, model: Any) -> None:
    """Embed `missing` (texts of like length side by side pad little) into the cache."""
    from indexing.engine.token_match import entry_tokens

    logger.info("catalog embeddings started: %d tool(s), %d already embedded", len(missing), known)
    started = time.perf_counter()
    for start in range(0, len(missing), EMBED_STEP):  # float32 tokens for a step only
        step = missing[start : start + EMBED_STEP]
        sentences, tokens = model.embed_with_tokens(step)
        for text, vector, words in zip(step, sentences, tokens, strict=True):
            _vector_cache[text] = (vector, entry_tokens(words))
    logger.info(
        "catalog embeddings finished: %d tool(s) in %.2f s",
        len(missing),
        time.perf_counter() - started,
    )


def _read_catalog_file(folder: Path, identity: str, texts: list[str]) -> Path:
    """Fill the cache from the catalog's file in `folder`, if there is one; its path."""
    from indexing.engine import catalog_vector_files as files

    path = files.catalog_file(folder, identity, texts)
    stored = files.load(path)
    if stored is not None:
        by_key = {files.text_key(text): text for text in texts}
        for key, entry in stored.items():
            if key in by_key:
                _vector_cache.setdefault(by_key[key], entry)
        logger.info(
            "catalog embeddings read from disk: %d of %d tool(s) (%s)",
            len(by_key.keys() & stored.keys()),
            len(texts),
            path.name,
        )
    return path


def _write_catalog_file(path: Path, texts: list[str]) -> None:
    """Keep the vectors of `texts` in `path` (a failure to write is logged, not raised)."""
    from indexing.engine import catalog_vector_files as files

    try:
        files.save(path, {files.text_key(text): _vector_cache[text] for text in texts})
    except OSError as error:
        logger.warning("catalog embeddings not kept on disk (%s): %s", path, error)
    else:
        logger.info("catalog embeddings kept on disk: %d tool(s) (%s)", len(texts), path.name)


def embedder_unavailable(folder: Path | None) -> bool:
    """Whether `embedder(folder)` is known to give None without loading anything: loading
    failed before, or the folder lacks the model's files."""
    return _embedders.get(folder) is False or not model_folder_ready(folder)


def summary(document: str) -> str:
    """What is embedded for a catalog entry: its heading and description."""
    return "\n\n".join(document.split("\n\n")[:2])


class CatalogVectors:
    """Unit vectors of catalog entries, by label. With `folder`, they are kept there on disk
    by content digest (`indexing.engine.catalog_vector_files`): a catalog embedded once is
    read back by a restarted or another worker instead of computed again."""

    def __init__(
        self, documents: list[tuple[str, str]], model: Any, folder: Path | None = None
    ) -> None:
        import numpy as np

        from indexing.engine.token_match import TokenMatch

        texts = {label: summary(text) for label, text in documents if "/tool/" in label}
        unique = list(dict.fromkeys(texts.values()))
        file = None
        if folder is not None and getattr(model, "identity", None):
            file = _read_catalog_file(folder, model.identity, unique)
        missing = [text for text in unique if text not in _vector_cache]
        if missing:
            _embed_into_cache(sorted(missing, key=len), len(unique) - len(missing), model)
            if file is not None:
                _write_catalog_file(file, unique)
        self.labels = list(texts)
        held = [_vector_cache[texts[label]] for label in self.labels]
        self.matrix = np.stack([vector for vector, _ in held]) if held else None  # none deferred
        self.tokens = TokenMatch([words for _, words in held])
        self._model = model

    def rankings(self, queries: list[str], source: str | None) -> list[list[str]]:
        """For each query, the labels under `source`, most similar first: the sentence
        cosine's first `TOKEN_MATCHED` by cosine + token match, then the rest by cosine. The
        queries are embedded in one pass."""
        import numpy as np

        if self.matrix is None or not queries:
            return [[] for _ in queries]
        rankings = []
        for vector, words in zip(*self._model.embed_with_tokens(queries, query=True), strict=True):
            cosines = self.matrix @ vector
            order = [
                i
                for i in np.argsort(-cosines, kind="stable")
                if source is None or self.labels[i].startswith(source)
            ]
            head = order[:TOKEN_MATCHED]
            scores = cosines[head] + self.tokens.scores(words, head)
            reranked = [head[i] for i in np.argsort(-scores, kind="stable")]
            rankings.append([self.labels[i] for i in reranked + order[TOKEN_MATCHED:]])
        return rankings


def hybrid_hits(
    store: SessionStore,
    vectors: CatalogVectors,
    queries: list[str],
    source: str | None,
    limit: int,
) -> list[list[Hit]]:
    """Each query's keyword and embedding rankings fused by label; each label's best keyword
    hit (or its first chunk, when only the embeddings found it)."""
    return [
        _fused_hits(store, query, dense[:DEPTH], source, limit)
        for query, dense in zip(queries, vectors.rankings(queries, source), strict=True)
    ]


def _fused_hits(
    store: SessionStore, query: str, dense: list[str], source: str | None, limit: int
) -> list[Hit]:
    """One query's keyword hits fused with `dense`, its embedding ranking of labels."""
    best: dict[str, Hit] = {}
    for hit in store.search(query, source=source, limit=DEPTH):
        best.setdefault(hit.label, hit)
    fused = reciprocal_rank_fusion(
        [list(best)[:DEPTH], dense], FUSION_K, weights=(1.0, DENSE_WEIGHT)
    )
    hits = []
    for label in fused:
        hit = best.get(label) or store.first_hit(label)
        if hit is not None:
            hits.append(hit)
        if len(hits) == limit:
            break
    return hits
