"""Response vectors as a session gets them: the worker's queue (newest first, bounded), the
search's wait for vectors due within its bound, the note when keywords alone ranked, and
vectors reused for a content embedded before."""

import logging
import threading
import time

import pytest

for _package in ("numpy", "safetensors", "tokenizers"):
    pytest.importorskip(_package, reason=f"{_package} (optional, for embeddings) not installed")

from django.conf import settings  # noqa: E402

from indexing.api.embedding_queue import EmbeddingQueue, Job  # noqa: E402
from indexing.api.response_embeddings import ResponseEmbeddings  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.embeddings import Embedder  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.model_folder import model_folder_ready  # noqa: E402
from indexing.engine.response_vectors import ResponseVectors  # noqa: E402
from indexing.engine.store import SessionStore  # noqa: E402


def _job(label: str, ran: list[str], dropped: list[str], then=lambda: None) -> Job:
    def run() -> None:
        ran.append(label)
        then()

    return Job(label, 1000, run, lambda: dropped.append(label))


def test_the_queue_runs_the_newest_first_and_drops_the_oldest_beyond_its_cap(caplog):
    queue, ran, dropped = EmbeddingQueue(cap=2), [], []
    running, gate, finished = threading.Event(), threading.Event(), threading.Event()
    queue.submit(_job("first", ran, dropped, lambda: (running.set(), gate.wait(10))))
    assert running.wait(10)  # it runs; the others wait behind it
    caplog.set_level(logging.WARNING, logger="indexing.api.embedding_queue")
    for label in ("a", "b", "c"):
        queue.submit(_job(label, ran, dropped, finished.set if label == "c" else lambda: None))
    queue.submit(_job("d", ran, dropped))
    assert dropped == ["a", "b"]  # cap 2: "c" and "d" wait
    assert "embedding queue full (2 waiting): a (1000 bytes) dropped" in caplog.text
    gate.set()
    assert finished.wait(10)
    assert ran == ["first", "d", "c"]  # the newest first


def test_a_job_not_queued_is_never_due():
    assert EmbeddingQueue(cap=4).due_in(Job("x", 1, lambda: None, lambda: None)) == float("inf")


def test_a_job_running_past_its_estimate_is_due_at_an_unknown_time():
    queue, ran, dropped = EmbeddingQueue(cap=4), [], []
    running, gate = threading.Event(), threading.Event()
    slow = _job("slow", ran, dropped, lambda: (running.set(), gate.wait(10)))
    behind = _job("behind", ran, dropped)
    queue.submit(slow)
    assert running.wait(10)
    queue.submit(behind)
    queue.seconds_per_byte = 3600 / 1000  # an hour for its 1000 bytes
    assert 3500 < queue.due_in(slow) <= 3600
    assert 7100 < queue.due_in(behind) <= 7200
    queue.seconds_per_byte = 1e-9  # it was due long ago: it runs slower than measured
    assert queue.due_in(slow) == float("inf")
    assert queue.due_in(behind) == float("inf")
    gate.set()


@pytest.fixture(scope="module")
def model_dir():
    if not model_folder_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("all-MiniLM-L6-v2 model folder not found (run `make embeddings`)")
    return settings.EMBEDDING_MODEL_DIR


LABELS = LabelCounter()  # one counter: every response of these tests gets a label of its own


def _indexed(store: SessionStore, text: str):
    compression = ResponseCompressor(store, LABELS).prepare("files__read", text, threshold=1024)
    assert compression is not None
    return compression


TEXT = (settings.BASE_DIR / "benchmarks" / "retrieval_docs" / "zlib-h.h").read_text()[:6_000]


def test_a_search_inside_the_wait_bound_uses_vectors(model_dir):
    store = SessionStore()
    responses = ResponseEmbeddings(model_dir=model_dir, max_bytes=2**20, wait_seconds=120)
    compression = _indexed(store, TEXT)
    responses.schedule(store, compression)
    label = compression.index().label
    ranked = responses.search(store, ["open a compressed file"], label, 5)
    assert ranked is not None and ranked.note is None  # waited: ranked with vectors
    assert ranked.hits[0]
    responses.close()
    store.close()


def test_a_search_that_cannot_wait_says_keywords_alone_ranked(model_dir):
    store = SessionStore()
    responses = ResponseEmbeddings(
        model_dir=model_dir, max_bytes=2**20, wait_seconds=0, static_vectors=False
    )
    compression = _indexed(store, TEXT + "\n# another content, not embedded before\n")
    responses.schedule(store, compression)
    label = compression.index().label
    ranked = responses.search(store, ["open a compressed file"], label, 5)
    assert ranked is not None
    assert ranked.note.startswith("Ranked by keywords alone: this response's vectors are still")
    assert ranked.hits == [store.search("open a compressed file", source=label, limit=5)]
    responses.close()
    store.close()


def test_a_content_read_again_takes_the_vectors_it_got_before(model_dir):
    calls = []
    model = Embedder.from_path(model_dir)
    embed = model.embed
    model.embed = lambda texts, *a: calls.append(len(texts)) or embed(texts, *a)
    text = TEXT[:4000] + "\n/* read twice */\n"
    store = SessionStore()
    first, again = _indexed(store, text).index().label, _indexed(store, text).index().label
    vectors = ResponseVectors()
    vectors.add(store, first, model)
    embedded = len(calls)
    assert embedded
    vectors.add(store, again, model)  # same content, another label: nothing embedded
    assert len(calls) == embedded and vectors.ready([again])
    one = vectors.rankings(["open a compressed file"], [first], 3)[0]
    other = vectors.rankings(["open a compressed file"], [again], 3)[0]
    offset = store.document(again).first_chunk - store.document(first).first_chunk
    assert [chunk + offset for chunk in one] == other  # the same chunks of the other copy
    store.close()


def test_a_catalog_search_says_keywords_alone_ranked_while_its_vectors_are_computed():
    from indexing.api.session_store import CATALOG_NOT_READY, hybrid_ranker

    store = SessionStore()
    responses = ResponseEmbeddings(model_dir=None, max_bytes=0)
    computing = hybrid_ranker(store, None, responses, catalog_pending=True)
    assert computing(["open a file"], "mcp/", 5).note == CATALOG_NOT_READY
    without_model = hybrid_ranker(store, None, responses, catalog_pending=False)
    assert without_model(["open a file"], "mcp/", 5).note is None
    store.close()


def test_the_queue_paces_its_thread_to_its_cpu_share(monkeypatch):
    from indexing.api import embedding_queue

    slept = []
    monkeypatch.setattr(embedding_queue.time, "sleep", slept.append)
    EmbeddingQueue(cap=1, cpu_share=0.25).pace(0.2)  # 0.2 s of CPU: 0.6 s of rest
    EmbeddingQueue(cap=1, cpu_share=1.0).pace(0.2)  # a whole CPU: no rest
    assert slept == [pytest.approx(0.6)]


def test_adding_vectors_reports_each_step_to_the_pace(model_dir):
    from indexing.engine.response_vectors import PIECES_PER_STEP, pieces

    store = SessionStore()
    label = _indexed(store, TEXT + "\n/* paced */\n").index().label
    info = store.document(label)
    hits = store.hits(list(range(info.first_chunk, info.last_chunk + 1)))
    count = sum(len(pieces(hit.body)) for hit in hits)
    steps = []
    ResponseVectors().add(store, label, Embedder.from_path(model_dir), steps.append)
    assert len(steps) == -(-count // PIECES_PER_STEP) and all(cpu > 0 for cpu in steps)
    store.close()


def test_without_a_model_a_search_is_not_told_that_vectors_are_coming(tmp_path, fresh_process):
    store = SessionStore()
    responses = ResponseEmbeddings(model_dir=tmp_path, max_bytes=2**20)  # no model files
    compression = _indexed(store, TEXT + "\n/* no model */\n")
    responses.schedule(store, compression)
    label = compression.index().label
    assert responses.search(store, ["open a compressed file"], label, 5) is None  # keywords
    store.close()


def test_a_search_does_not_wait_for_vectors_overdue_and_says_they_are_coming(model_dir):
    from indexing.api.embedding_queue import embedding_queue

    queue = embedding_queue(16)  # the worker's queue, which `ResponseEmbeddings` uses
    running, gate = threading.Event(), threading.Event()
    queue.submit(Job("overdue", 10, lambda: (running.set(), gate.wait(30)), lambda: None))
    assert running.wait(10)
    learned, queue.seconds_per_byte = queue.seconds_per_byte, 1e-9  # it was due at once
    store = SessionStore()
    responses = ResponseEmbeddings(
        model_dir=model_dir, max_bytes=2**20, wait_seconds=5, candidates=0, static_vectors=False
    )
    try:
        compression = _indexed(store, TEXT + "\n/* behind an overdue job */\n")
        responses.schedule(store, compression)
        label = compression.index().label
        started = time.monotonic()
        ranked = responses.search(store, ["open a compressed file"], label, 5)
        assert time.monotonic() - started < 2  # not the 5 s of its wait bound
        assert ranked is not None
        assert ranked.note.startswith("Ranked by keywords alone: this response's vectors are")
        assert "expected in" not in ranked.note  # when is not known
    finally:
        gate.set()
        queue.seconds_per_byte = learned
        responses.close()
        store.close()


def test_a_content_read_again_is_searched_with_its_vectors_at_once(model_dir):
    from indexing.api.embedding_queue import embedding_queue

    store = SessionStore()
    responses = ResponseEmbeddings(model_dir=model_dir, max_bytes=2**20, wait_seconds=60)
    text = TEXT + "\n/* read again while the queue is busy */\n"
    first = _indexed(store, text)
    responses.schedule(store, first)
    # Its vectors computed and stored (a search waits for them only when they are expected
    # within its bound, which a loaded machine's learned rate may exceed: then it is asked again).
    deadline = time.monotonic() + 120
    while (
        ranked := responses.search(store, ["open a compressed file"], first.index().label, 5)
    ) is None or ranked.note is not None:
        assert time.monotonic() < deadline, ranked
        time.sleep(0.2)
    queue = embedding_queue(16)
    running, gate = threading.Event(), threading.Event()
    queue.submit(Job("long", 2**20, lambda: (running.set(), gate.wait(30)), lambda: None))
    assert running.wait(10)
    learned, queue.seconds_per_byte = queue.seconds_per_byte, 1e-9  # overdue: due who knows when
    try:
        again = _indexed(store, text)  # the same file read again: a new label
        responses.schedule(store, again)
        label = again.index().label
        ranked = responses.search(store, ["open a compressed file"], label, 5)
        assert ranked is not None and ranked.note is None  # not behind the job running
        assert ranked.hits[0] and all(hit.label == label for hit in ranked.hits[0])
    finally:
        gate.set()
        queue.seconds_per_byte = learned
        responses.close()
        store.close()
