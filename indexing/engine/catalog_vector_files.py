"""A catalog's vectors kept on disk by content digest, so that a restart or another worker
reuses them instead of spending seconds of CPU per hundred tools again.

One file per catalog: `<digest>.npz` in the folder the caller names, the digest over the
model's identity and every embedded text. It holds, per text (by its sha256), the unit
sentence vector and the token vectors as the token match keeps them (int8 with a scale per
token). Files are written whole under a temporary name and renamed, so a reader never sees
half of one; the newest `KEPT_FILES` are kept. Needs numpy.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from indexing.engine.token_match import EntryTokens

logger = logging.getLogger(__name__)
KEPT_FILES = 32
Entry = tuple[np.ndarray, EntryTokens]  # a text's sentence vector and its token vectors


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def catalog_file(folder: Path, model_identity: str, texts: Iterable[str]) -> Path:
    """Where the vectors of these texts (any order) by this model are kept."""
    digest = hashlib.sha256(model_identity.encode())
    for key in sorted(text_key(text) for text in texts):
        digest.update(key.encode())
    return folder / f"{digest.hexdigest()[:32]}.npz"


def load(path: Path) -> dict[str, Entry] | None:
    """text key -> entry, as `save` wrote them; None when there is no such file or it cannot
    be read (logged: the vectors are then computed again)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as held:
            keys, sentences = held["keys"].tolist(), held["sentences"]
            counts, ids = held["token_counts"], held["token_ids"]
            quantized, scales = held["quantized"], held["scales"]
    except (OSError, ValueError, KeyError) as error:
        logger.warning("catalog vectors in %s unreadable, computing them again: %s", path, error)
        return None
    ends = np.cumsum(counts)
    starts = ends - counts
    return {
        key: (
            sentences[row],
            EntryTokens(
                tuple(int(i) for i in ids[start:end] if i >= 0),
                quantized[start:end],
                scales[start:end],
            ),
        )
        for row, (key, start, end) in enumerate(zip(keys, starts, ends, strict=True))
    }


def save(path: Path, entries: dict[str, Entry]) -> None:
    """Write `entries` (text key -> entry) to `path`, whole or not at all; keep the newest
    `KEPT_FILES` files of its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = list(entries)
    tokens = [entries[key][1] for key in keys]
    dimensions = entries[keys[0]][0].shape[0] if keys else 0
    arrays = {
        "keys": np.array(keys, dtype="U64"),
        "sentences": np.stack([entries[key][0] for key in keys])
        if keys
        else np.zeros((0, dimensions), np.float32),
        "token_counts": np.array([len(t.quantized) for t in tokens], np.int64),
        "token_ids": np.array([i for t in tokens for i in _padded_ids(t)], np.int64),
        "quantized": np.concatenate([t.quantized for t in tokens])
        if tokens
        else np.zeros((0, dimensions), np.int8),
        "scales": np.concatenate([t.scales for t in tokens]) if tokens else np.zeros(0, np.float32),
    }
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _prune(path.parent)


def _padded_ids(tokens: EntryTokens) -> list[int]:
    """One id per token vector held: an entry of no tokens holds one blank vector, saved with
    id -1, which `load` leaves out again."""
    ids = list(tokens.ids)
    return ids + [-1] * (len(tokens.quantized) - len(ids))


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.npz"), key=lambda file: file.stat().st_mtime, reverse=True)
    for old in files[KEPT_FILES:]:
        old.unlink(missing_ok=True)
