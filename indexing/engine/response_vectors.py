"""Hybrid search over indexed responses: keyword hits fused with sentence-embedding similarity.

Users ask what a line does ("open a .gz file for reading") where the line only names it
(`gzopen`): words do not meet, meanings do. Each chunk of a response is cut into pieces of
`PIECE_LINES` lines, each piece embedded (all-MiniLM-L6-v2, `indexing.engine.embeddings`).
A query is embedded token by token (its tokens as the model's last layer sees them): each
token meets a chunk in the piece nearest to it, and the chunk scores the mean of those
cosines, so a chunk answering different parts of the question in different pieces ranks as
high as one piece answering all of it. That ranking, cut to its top `DEPTH`, is fused with the
keyword ranking's top `DEPTH` by weighted reciprocal rank.

Embedding costs about 2.5 CPU-minutes per MiB of text on this project's 2-core test
machine, so vectors are computed on a background thread after the placeholder is sent, one
response at a time. Until then a response's pieces have static vectors, computed at once
from a table of token vectors (`indexing.engine.static_vectors`), which the full ones
replace: a search ranks by them the same way, as an approximation (`approximate`).
Measured with benchmarks/retrieval.py: see docs/benchmarks.md.
Plain Python; vectors need numpy (imported only then) and an `Embedder` (or anything with
its `embed`, `embed_with_tokens` and `dimensions`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from indexing.engine.fusion import reciprocal_rank_fusion
from indexing.engine.store import Hit, SessionStore

if TYPE_CHECKING:
    import numpy as np

PIECE_LINES = 6
DEPTH = 40
DENSE_WEIGHT = 1.5
FUSION_K = 10
PIECES_PER_STEP = 64
"""Pieces embedded between two checks that the store is still open."""
REUSED_BYTES = 64 * 2**20
"""Piece vectors of recent contents kept for reuse, per process (about 37 MiB of text)."""
SEARCHED_BYTES = 8 * 2**20
"""Vectors of pieces embedded by searches (`indexing.engine.candidate_vectors`), kept for
later searches and their response's own embedding, per process (about 21,000 pieces)."""
RESCORED = 200
"""Chunks ranked token by token in a search: the best by whole-query cosine (every chunk of a
search in one response of up to about 400 KB)."""


class _Pieces(NamedTuple):
    """One response's piece vectors: unit vectors as int8 rows and their scales, the chunk
    ids ascending, and the row of each one's first piece."""

    quantized: np.ndarray
    scales: np.ndarray
    chunk_ids: np.ndarray
    starts: np.ndarray


def pieces(body: str) -> list[str]:
    """The texts embedded for one chunk: its non-blank runs of `PIECE_LINES` lines."""
    lines = body.split("\n")
    runs = (
        "\n".join(lines[at : at + PIECE_LINES]).strip() for at in range(0, len(lines), PIECE_LINES)
    )
    return [run for run in runs if run]


def _go_on(cpu_seconds: float) -> None:
    """No pause between steps."""


class ResponseVectors:
    """Piece vectors of one store's responses, by label: unit vectors stored as int8 with a
    scale per piece (388 bytes a piece; as float32 the same rankings on the retrieval
    benchmark's dev split).

    `add` runs on a background thread; `rankings` on the searching one.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()  # notified when a label gets vectors or never will
        self._labels: dict[str, _Pieces] = {}
        self._keywords_only: set[str] = set()  # labels left without vectors (`skip`)
        self._approximate: dict[str, _Pieces] = {}  # static vectors, until `add`'s come
        self._closed = False
        self._model: Any = None  # the model of the vectors held (queries need the same one)

    def add(
        self, store: SessionStore, label: str, model: Any, pace: Callable[[float], None] = _go_on
    ) -> None:
        """Embed the chunks of `label` with `model` (blocking: seconds of CPU per MiB). Stops,
        keeping nothing, once `close` was called or the document left the store. Contents
        embedded recently (by any store of the process) take the vectors they got then.
        `pace` gets the CPU seconds of each step of `PIECES_PER_STEP` pieces (and may sleep)."""
        content = self._content(store, label, model)
        if content is None:
            return
        key, texts, owners, first_chunk = content
        found = _reused.get(key)
        if found is None:
            found = self._embed(texts, owners, model, pace)
            if found is None:
                return
            _reused.put(key, found)
        self._hold(label, found, first_chunk, model)

    def reuse(self, store: SessionStore, label: str, model: Any) -> bool:
        """Give `label` the vectors its content got recently (by any store of the process),
        embedding nothing: whether it had any. Milliseconds: the content's digest."""
        content = self._content(store, label, model)
        found = None if content is None else _reused.get(content[0])
        if found is None:
            return False
        self._hold(label, found, content[3], model)
        return True

    def _content(
        self, store: SessionStore, label: str, model: Any
    ) -> tuple[str, list[str], list[int], int] | None:
        """`label`'s content key, then `_pieces_of`'s pieces, their chunks and first chunk."""
        found = self._pieces_of(store, label)
        if found is None:
            return None
        texts, owners, first_chunk = found
        return _content_key(model, texts, owners), texts, owners, first_chunk

    def _hold(self, label: str, found: _Pieces, first_chunk: int, model: Any) -> None:
        quantized, scales, relative, starts = found
        with self._lock:
            self._model = model
            self._labels[label] = _Pieces(quantized, scales, relative + first_chunk, starts)
            self._approximate.pop(label, None)
            self._lock.notify_all()

    def approximate(self, store: SessionStore, label: str, model: Any, table: Any) -> None:
        """Give `label` static vectors from `table` (a `StaticTable` of `model`) until `add`
        gives it the model's own (milliseconds per MiB of text)."""
        found = self._pieces_of(store, label)
        if found is None or not found[0]:
            return
        import numpy as np

        texts, owners, first_chunk = found
        quantized, scales = table.piece_vectors(texts)
        chunk_ids, starts = np.unique(np.array(owners, dtype=np.int64), return_index=True)
        with self._lock:
            if label not in self._labels and not self._closed:
                self._model = model
                self._approximate[label] = _Pieces(
                    quantized, scales, chunk_ids + first_chunk, starts
                )

    def _pieces_of(
        self, store: SessionStore, label: str
    ) -> tuple[list[str], list[int], int] | None:
        """The pieces of `label`'s chunks, each one's chunk (relative to the document's first)
        and the first chunk's id; None once closed or when the document left the store."""
        if self._closed:  # the store may be closed too
            return None
        with store.exclusive():
            if self._closed or label not in store.labels(label):
                return None
            info = store.document(label)
            hits = store.hits(list(range(info.first_chunk, info.last_chunk + 1)))
        texts, owners = [], []
        for hit in hits:
            for piece in pieces(hit.body):
                texts.append(piece)
                owners.append(hit.chunk_id - info.first_chunk)
        return texts, owners, info.first_chunk

    def _embed(
        self, texts: list[str], owners: list[int], model: Any, pace: Callable[[float], None]
    ) -> _Pieces | None:
        """The pieces' vectors, chunk ids relative to the document's first; None once closed.
        Pieces a search embedded already (`searched_pieces`) are not embedded again."""
        import numpy as np

        from indexing.engine.int8_vectors import quantise

        quantized = np.zeros((len(texts), model.dimensions), np.int8)
        scales = np.zeros(len(texts), np.float32)
        missing = []
        for row, text in enumerate(texts):
            found = searched_pieces.get(piece_key(model, text))
            if found is None:
                missing.append(row)
            else:
                quantized[row], scales[row] = found[0], found[1][0]
        for start in range(0, len(missing), PIECES_PER_STEP):
            if self._closed:
                return None
            rows = missing[start : start + PIECES_PER_STEP]
            started = time.thread_time()
            quantized[rows], scales[rows] = quantise(model.embed([texts[row] for row in rows]))
            pace(time.thread_time() - started)
        chunk_ids, starts = np.unique(np.array(owners, dtype=np.int64), return_index=True)
        return _Pieces(quantized, scales, chunk_ids, starts)

    def pending(self, labels: list[str]) -> list[str]:
        """Those of `labels` still waiting for vectors (neither embedded nor skipped)."""
        with self._lock:
            return [
                label
                for label in labels
                if label not in self._labels and label not in self._keywords_only
            ]

    def unapproximated(self, labels: list[str]) -> list[str]:
        """Those of `labels` still waiting for vectors and without static ones."""
        with self._lock:
            return [label for label in self.pending(labels) if label not in self._approximate]

    def wait(self, labels: list[str], timeout: float) -> None:
        """Block until none of `labels` is pending, or `timeout` seconds passed."""
        with self._lock:
            self._lock.wait_for(
                lambda: (
                    all(label in self._labels or label in self._keywords_only for label in labels)
                    or self._closed
                ),
                timeout,
            )

    def skip(self, label: str) -> None:
        """Leave `label` without vectors for good: searches rank its chunks by keywords alone
        and need not wait for it."""
        with self._lock:
            self._keywords_only.add(label)
            self._lock.notify_all()

    def ready(self, labels: list[str], approximate: bool = False) -> bool:
        """Whether every one of `labels` (at least one) has its vectors, or never will, and
        at least one has them (with `approximate`, static vectors count)."""
        with self._lock:
            held = self._held(approximate)
            done = all(label in held or label in self._keywords_only for label in labels)
            return done and any(label in held for label in labels)

    def _held(self, approximate: bool) -> dict[str, _Pieces]:
        return {**self._approximate, **self._labels} if approximate else self._labels

    def rankings(
        self, queries: list[str], labels: list[str], limit: int, approximate: bool = False
    ) -> list[list[int]]:
        """For each query, the `limit` chunk ids of `labels` nearest it, best first (with
        `approximate`, by static vectors where the model's are not computed yet). The
        queries are embedded in one pass (the model's weights are read once for all).

        Every chunk is first scored by its best piece's cosine to the whole query (one product
        a piece); the best `RESCORED` are then ranked by the mean over the query's tokens of
        each token's best cosine among the chunk's pieces (one product a piece and token)."""
        with self._lock:
            vectors = self._held(approximate)
            held = [vectors[label] for label in labels if label in vectors]
            model = self._model
        held = [pieces for pieces in held if len(pieces.chunk_ids)]
        if not held or not queries:
            return [[] for _ in queries]
        return ranked_by_meaning(model, held, queries, limit)

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held."""
        with self._lock:
            every = [*self._labels.values(), *self._approximate.values()]
            return sum(array.nbytes for held in every for array in held)

    def forget(self, labels: list[str]) -> None:
        """Drop the vectors of these labels (documents evicted from the store)."""
        with self._lock:
            for label in labels:
                self._labels.pop(label, None)
                self._approximate.pop(label, None)
                self._keywords_only.discard(label)

    def close(self) -> None:
        """Stop any `add` in progress at its next step; later ones keep nothing."""
        self._closed = True
        with self._lock:
            self._lock.notify_all()


class _Recent:
    """Arrays by key, the most recently used kept up to `max_bytes`: the piece vectors of a
    content (a response read again, the same file under a new label in any session of the
    worker, takes them instead of being embedded again), or of one piece."""

    def __init__(self, max_bytes: int) -> None:
        self._lock = threading.Lock()
        self._held: OrderedDict[str, tuple[np.ndarray, ...]] = OrderedDict()
        self._bytes = 0
        self.max_bytes = max_bytes

    @property
    def held(self) -> int:
        """How many keys are held."""
        return len(self._held)

    def get(self, key: str) -> Any:
        with self._lock:
            found = self._held.get(key)
            if found is not None:
                self._held.move_to_end(key)
            return found

    def put(self, key: str, found: tuple[np.ndarray, ...]) -> None:
        with self._lock:
            if key in self._held:
                self._bytes -= _nbytes(self._held.pop(key))
            self._held[key] = found
            self._bytes += _nbytes(found)
            while self._held and self._bytes > self.max_bytes:
                self._bytes -= _nbytes(self._held.popitem(last=False)[1])

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._bytes = 0


def _nbytes(held: tuple[np.ndarray, ...]) -> int:
    return sum(array.nbytes for array in held)


def _model_key(model: Any) -> str:
    """Tells a model's vectors apart from another's."""
    return str(getattr(model, "identity", None) or id(model))


def _content_key(model: Any, texts: list[str], owners: list[int]) -> str:
    """What decides a document's piece vectors: the model and every piece with its chunk."""
    digest = hashlib.sha256(_model_key(model).encode())
    for owner, text in zip(owners, texts, strict=True):
        digest.update(f"{owner}\0{text}\0".encode())
    return digest.hexdigest()


def piece_key(model: Any, text: str) -> str:
    """What decides one piece's vector: the model and the piece's text."""
    return hashlib.sha256(f"{_model_key(model)}\0{text}".encode()).hexdigest()


_reused = _Recent(REUSED_BYTES)
searched_pieces = _Recent(SEARCHED_BYTES)
"""Piece vectors embedded by searches, by `piece_key`: (int8 row, scale)."""


def forget_reused() -> None:
    """Drop every vector kept for reuse (a benchmark's runs start alike)."""
    _reused.clear()
    searched_pieces.clear()


def any_reusable() -> bool:
    """Whether the process keeps any content's vectors (`ResponseVectors.reuse` can find
    some)."""
    return bool(_reused.held)


def hybrid_response_hits(
    store: SessionStore,
    vectors: ResponseVectors,
    queries: list[str],
    source: str | None,
    limit: int,
    keywords_only: str | None = None,
    approximate: bool = False,
) -> list[list[Hit]] | None:
    """Each query's keyword and embedding rankings of the documents under `source`, fused
    by chunk; None when some of them have no vectors (yet), and then keywords alone rank.
    With `approximate`, static vectors stand for those not computed yet. Documents whose
    labels start with `keywords_only` (a catalog's) never get vectors: neither waited for
    nor in the embedding ranking."""
    labels = [
        label
        for label in store.searched_labels(source)
        if keywords_only is None or not label.startswith(keywords_only)
    ]
    vectors.forget(store.evicted_labels(source))
    if not vectors.ready(labels, approximate):
        return None
    lexical = [
        [hit.chunk_id for hit in store.search(query, source=source, limit=DEPTH)]
        for query in queries
    ]
    dense = vectors.rankings(queries, labels, DEPTH, approximate)
    return fused_hits(store, lexical, dense, limit)


def fused_hits(
    store: SessionStore, lexical: list[list[int]], dense: list[list[int]], limit: int
) -> list[list[Hit]]:
    """Each query's keyword and embedding rankings (chunk ids, best first) fused by weighted
    reciprocal rank: its best `limit` hits."""
    return [
        store.hits(
            reciprocal_rank_fusion([words, meaning], FUSION_K, weights=(1.0, DENSE_WEIGHT))[:limit]
        )
        for words, meaning in zip(lexical, dense, strict=True)
    ]


def chunk_pieces(rows: dict[int, tuple[np.ndarray, np.ndarray]]) -> _Pieces:
    """Pieces held as `ResponseVectors` holds a response's, from each chunk's int8 rows and
    their scales (by chunk id; none without rows)."""
    import numpy as np

    chunk_ids = sorted(chunk for chunk, (_, scales) in rows.items() if len(scales))
    counts = np.array([len(rows[chunk][1]) for chunk in chunk_ids], np.int64)
    return _Pieces(
        np.concatenate([rows[chunk][0] for chunk in chunk_ids]),
        np.concatenate([rows[chunk][1] for chunk in chunk_ids]),
        np.array(chunk_ids, np.int64),
        np.cumsum(counts) - counts,
    )


def ranked_by_meaning(
    model: Any, held: list[_Pieces], queries: list[str], limit: int
) -> list[list[int]]:
    """For each query, the `limit` chunk ids of `held` nearest it, best first (see
    `ResponseVectors.rankings`); the queries embedded in one pass."""
    sentences, tokens = model.embed_with_tokens(queries, query=True)
    return [
        _ranked(held, sentence, words.vectors if len(words.ids) else sentence[None], limit)
        for sentence, words in zip(sentences, tokens, strict=True)
    ]


def _ranked(
    held: list[_Pieces], sentence: np.ndarray, query_rows: np.ndarray, limit: int
) -> list[int]:
    """`ResponseVectors.rankings` for one query: its sentence vector and its token vectors
    (or its sentence vector again, for a query of no tokens), one per row of `query_rows`."""
    import numpy as np

    from indexing.engine.int8_vectors import group_maxima

    nearest = np.concatenate(
        [group_maxima(quantized, scales, starts, sentence) for quantized, scales, _, starts in held]
    )
    shortlist = _best_first(nearest, max(limit, RESCORED))  # positions among held's chunks
    order = np.argsort(shortlist)  # ascending positions: the shortlist response by response
    ascending = shortlist[order]
    firsts = np.cumsum([0] + [len(pieces.chunk_ids) for pieces in held[:-1]])
    mine = np.split(ascending, np.searchsorted(ascending, firsts[1:]))  # each response's
    quantized, scales, counts = zip(
        *(
            _chunk_pieces(pieces, chunks - first)
            for pieces, first, chunks in zip(held, firsts, mine, strict=True)
            if len(chunks)
        ),
        strict=True,
    )
    count = np.concatenate(counts)
    products = group_maxima(
        np.concatenate(quantized), np.concatenate(scales), np.cumsum(count) - count, query_rows.T
    )
    scores = np.empty(len(shortlist), np.float32)
    scores[order] = products.mean(axis=1)
    chunk_ids = np.concatenate([pieces.chunk_ids for pieces in held])[shortlist]
    return [int(chunk_id) for chunk_id in chunk_ids[_best_first(scores, limit)]]


def _best_first(scores: np.ndarray, limit: int) -> np.ndarray:
    """The positions of the `limit` highest `scores`, highest first (ties: first position)."""
    import numpy as np

    negated = -scores
    best = np.arange(len(negated))
    if len(negated) > limit:  # sort only what can be among the best `limit` (ties kept)
        best = np.flatnonzero(negated <= np.partition(negated, limit - 1)[limit - 1])
    return best[np.argsort(negated[best], kind="stable")][:limit]


def _chunk_pieces(pieces: _Pieces, chunks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of `chunks` (positions among one response's chunks), chunk after chunk:
    their int8 rows, their scales, and how many each chunk has."""
    import numpy as np

    quantized, scales, _, starts = pieces
    counts = np.append(starts[1:], len(quantized))[chunks] - starts[chunks]
    firsts = np.cumsum(counts) - counts  # each chunk's first row in `rows`
    rows = np.arange(counts.sum()) + np.repeat(starts[chunks] - firsts, counts)
    return quantized[rows], scales[rows], counts
