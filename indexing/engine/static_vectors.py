"""Static token vectors: a fast approximation of a response's piece vectors.

Embedding a response with the full model takes minutes of CPU a MiB
(`indexing.engine.response_vectors`), so right after its placeholder a search would rank by
keywords alone. Instead each piece gets at once a static vector (as Model2Vec distils a
sentence encoder): every token of the model's vocabulary is run once through the model as
`[CLS] token [SEP]` and mean-pooled, giving a table of one vector per token; a piece's vector
is the unit mean of its tokens' rows, each weighted by its IDF among the response's pieces
(log(1 + pieces / pieces holding it)). Queries are still embedded by the full model, whose
space the table shares. On the dev split of benchmarks/retrieval.py recall@5 was 0.76 fused
with keywords as `hybrid_response_hits` fuses full vectors, against 0.70 for keywords alone
(0.83 with full vectors).

The table (30,522 tokens x 384 for all-MiniLM-L6-v2: 35 CPU-seconds to build, 12 MB as int8
rows and scales) is kept in the model folder as `TABLE_FILE`, with the digest of the model
it was built from (`embeddings.model_identity`): the table belongs to the model, whatever
data directory or test uses it, and `make` builds it beside the weights it downloads
(`python -m indexing.engine.static_vectors MODEL_DIR`). A file of another model or shape, or
unreadable, is built again; a folder that cannot be written keeps the table in memory only.
Needs numpy, as `indexing.engine.embeddings`: import only where embeddings are wanted.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from indexing.engine.int8_vectors import quantise

logger = logging.getLogger(__name__)
TABLE_FILE = "static_vectors.npz"
BUILD_BATCH = 256  # vocabulary tokens run through the model at a time
MAX_PIECE_TOKENS = 512  # tokens of a piece that count (a piece is 6 lines)
TOKENS_PER_STEP = 16_384  # table rows gathered at a time while averaging pieces


class StaticTableError(ValueError):
    """A table file that does not belong to the model it is loaded for."""


class StaticTable(NamedTuple):
    """One int8 row and scale per vocabulary token, the model's digest, and a tokenizer
    that neither pads nor adds `[CLS]`/`[SEP]`."""

    quantized: np.ndarray
    scales: np.ndarray
    identity: str
    tokenizer: Any

    def piece_vectors(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The static vectors of one response's pieces, as int8 rows and their scales."""
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        ids = [np.array(encoding.ids, np.int64) for encoding in encodings]
        lengths = np.array([len(row) for row in ids], np.int64)
        flat = np.concatenate(ids) if ids else np.zeros(0, np.int64)
        vocabulary = len(self.scales)
        owners = np.repeat(np.arange(len(texts)), lengths)
        holding = np.bincount(np.unique(owners * vocabulary + flat) % vocabulary)
        weights = np.log1p(len(texts) / holding[flat]).astype(np.float32) * self.scales[flat]
        ends = np.cumsum(lengths)
        vectors = np.zeros((len(texts), self.quantized.shape[1]), np.float32)
        first = 0
        while first < len(texts):  # pieces whose tokens fit a step (at least one piece)
            start = ends[first] - lengths[first]
            last = max(first + 1, int(np.searchsorted(ends, start + TOKENS_PER_STEP, "right")))
            rows = self.quantized[flat[start : ends[last - 1]]].astype(np.float32)
            rows *= weights[start : ends[last - 1], None]
            nonempty = np.flatnonzero(lengths[first:last]) + first
            if len(nonempty):
                offsets = ends[nonempty] - lengths[nonempty] - start
                vectors[nonempty] = np.add.reduceat(rows, offsets, axis=0)
            first = last
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return quantise(vectors / np.clip(norms, 1e-12, None))


def build_table(model: Any) -> np.ndarray:
    """Each vocabulary token's vector: `[CLS] token [SEP]` through `model`, pooled as its
    sentences are (float32, one row per token id)."""
    size = model.word.shape[0]
    cls_id, sep_id = (model.tokenizer.token_to_id(name) for name in ("[CLS]", "[SEP]"))
    table = np.zeros((size, model.hidden), np.float32)
    for start in range(0, size, BUILD_BATCH):
        ids = np.arange(start, min(start + BUILD_BATCH, size))
        batch = np.stack([np.full(len(ids), cls_id), ids, np.full(len(ids), sep_id)], axis=1)
        mask = np.ones(batch.shape, np.float32)
        table[ids] = model.pooled(batch, mask)
    return table


def load_table(path: Path, model: Any) -> StaticTable:
    """The table kept at `path` for `model`.

    Raises:
        OSError: no file, or unreadable.
        StaticTableError: the file is not a table of this model (digest or shape).
    """
    try:
        with np.load(path, allow_pickle=False) as stored:
            identity = str(stored["identity"])
            quantized, scales = stored["quantized"], stored["scales"]
    except (ValueError, KeyError, EOFError) as error:
        raise StaticTableError(f"{path}: not a static table ({error})") from None
    if identity != model.identity:
        raise StaticTableError(f"{path}: built from another model (digest {identity[:12]})")
    expected = (model.word.shape[0], model.hidden)
    if quantized.shape != expected or scales.shape != expected[:1] or quantized.dtype != np.int8:
        raise StaticTableError(f"{path}: shape {quantized.shape}, expected {expected}")
    return StaticTable(quantized, scales, identity, _plain_tokenizer(model))


def table_for(folder: Path, model: Any) -> StaticTable:
    """`model`'s table, read from `folder`; built (and written there, if it can be) when the
    file is missing, of another model or unreadable."""
    path = folder / TABLE_FILE
    try:
        return load_table(path, model)
    except FileNotFoundError:
        logger.info("static vectors: building the table of %s", folder)
    except (OSError, StaticTableError) as error:
        logger.warning("static vectors: building the table again: %s", error)
    started = time.process_time()
    quantized, scales = quantise(build_table(model))
    logger.info("static vectors: table built in %.0f CPU-s", time.process_time() - started)
    partial = path.with_name(f".{TABLE_FILE}.{os.getpid()}.tmp")
    try:
        with partial.open("wb") as file:
            np.savez(file, quantized=quantized, scales=scales, identity=np.str_(model.identity))
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        logger.warning("static vectors: table kept in memory only (%s): %s", path, error)
    return StaticTable(quantized, scales, model.identity, _plain_tokenizer(model))


def _plain_tokenizer(model: Any) -> Any:
    """`model`'s tokenizer without padding, truncating at `MAX_PIECE_TOKENS`."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(model.tokenizer.to_str())
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_PIECE_TOKENS)
    return tokenizer


_table: StaticTable | None = None
_loading: threading.Thread | None = None
_loading_lock = threading.Lock()


def loaded_table() -> StaticTable | None:
    """The process's table once `load_in_background` has it (never waits)."""
    return _table


def load_in_background(folder: Path, load_model: Any) -> None:
    """Start reading (or building) the process's table on a thread of its own, once;
    `load_model()` gives the model (None: no table)."""
    global _loading
    with _loading_lock:
        if _loading is not None:
            return
        _loading = threading.Thread(
            target=_load, args=(folder, load_model), name="static-vectors", daemon=True
        )
        _loading.start()


def _load(folder: Path, load_model: Any) -> None:
    try:
        model = load_model()
        if model is not None:
            load(folder, model)
    except Exception:  # a thread of its own: searches rank without static vectors
        logger.exception("static vectors unavailable")


def load(folder: Path, model: Any) -> StaticTable:
    """Read (or build) the process's table now: `table_for`."""
    global _table
    _table = table_for(folder, model)
    return _table


if __name__ == "__main__":  # python -m indexing.engine.static_vectors MODEL_DIR (used by make)
    import sys

    from indexing.engine.embeddings import Embedder

    logging.basicConfig(level=logging.INFO, format="LocalRouter: %(message)s")
    table_for(Path(sys.argv[1]), Embedder.from_path(sys.argv[1]))
