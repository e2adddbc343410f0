"""How long a response waits for its vectors: real text of 16 KiB to 1 MiB, embedded as the
gateway embeds it (`ResponseVectors.add`: 6-line pieces, all-MiniLM-L6-v2 on one BLAS
thread), nothing cached. Shared by benchmarks/retrieval.py (`--time-to-vectors`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from indexing.engine.compressor import ResponseCompressor
from indexing.engine.labels import LabelCounter
from indexing.engine.response_vectors import ResponseVectors, pieces
from indexing.engine.store import SessionStore

SIZES_KIB = (16, 64, 256, 1024)


@dataclass(frozen=True)
class TimeToVectors:
    size: int  # bytes of the response
    pieces: int
    wall_seconds: float
    cpu_seconds: float


def text_of_size(texts: list[str], size: int) -> str:
    """The texts one after another, cut at the last line break within `size` bytes."""
    joined = "\n".join(texts)
    while len(joined.encode()) < size:
        joined += "\n" + joined
    cut = joined.encode()[:size].decode(errors="ignore")
    return cut[: cut.rfind("\n") + 1] or cut


def time_to_vectors(
    texts: list[str], model, *, tool: str, sizes_kib=SIZES_KIB
) -> list[TimeToVectors]:
    """For each size, a response of that size indexed, then its vectors computed (timed)."""
    rows = []
    for kib in sizes_kib:
        store = SessionStore()
        text = text_of_size(texts, kib * 1024)
        compression = ResponseCompressor(store, LabelCounter()).prepare(tool, text, threshold=1)
        if compression is None:
            raise RuntimeError(f"a response of {kib} KiB was not indexed")
        label = compression.index().label
        info = store.document(label)
        hits = store.hits(list(range(info.first_chunk, info.last_chunk + 1)))
        count = sum(len(pieces(hit.body)) for hit in hits)
        vectors = ResponseVectors()
        wall, cpu = time.perf_counter(), time.thread_time()
        vectors.add(store, label, model)
        rows.append(
            TimeToVectors(
                len(text.encode()), count, time.perf_counter() - wall, time.thread_time() - cpu
            )
        )
        assert vectors.ready([label])
        store.close()
    return rows
