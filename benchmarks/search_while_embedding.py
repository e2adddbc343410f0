"""IndexSearch while the worker embeds responses: does the search stay near its idle latency?

Run from the repository root (under a minute; needs the embedding model):

    .venv/bin/python benchmarks/search_while_embedding.py [--searches 40]

One process tuned as the gateway's serving process (`tune_for_serving`: the switch interval,
one BLAS thread). A session store holds a 482 KB response of real text (the retrieval
benchmark's documents one after another) without vectors; IndexSearch calls on it
(`search_with_labels` with the session's hybrid ranker, in a worker thread as the gateway
runs them) are timed idle, then while the worker's embedding queue embeds three other
responses of 256 KiB (`ResponseEmbeddings`, the real model). Target: the busy median
within 1.5x the idle one. Markdown to stdout and docs/benchmarks.md (section
`search_while_embedding`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]

from benchmarks import _docs  # noqa: E402
from benchmarks._time_to_vectors import text_of_size  # noqa: E402
from gateway.serving.process_tuning import tune_for_serving  # noqa: E402
from indexing.api.response_embeddings import ResponseEmbeddings  # noqa: E402
from indexing.api.session_store import hybrid_ranker  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.search import search_with_labels  # noqa: E402
from indexing.engine.store import SessionStore  # noqa: E402
from localrouter import config  # noqa: E402

SECTION = "search_while_embedding"
DOCS_DIR = ROOT / "benchmarks" / "retrieval_docs"
SEARCHED_BYTES = 482_000
EMBEDDED_KIB = 256
QUERIES = [
    "how do I open a compressed file",
    "which option keeps file permissions",
    "time zone of a country",
    "list the tables of the database",
    "release notes of the previous version",
]
TARGET = 1.5


def timed_searches(store: SessionStore, label: str, rank, count: int) -> list[float]:
    """Seconds per IndexSearch call, each run on a thread of its own (as `to_thread`)."""
    seconds: list[float] = []

    def one(query: str) -> None:
        started = time.perf_counter()
        search_with_labels(store, [query], label, None, rank)
        seconds.append(time.perf_counter() - started)

    for n in range(count):
        worker = threading.Thread(target=one, args=(QUERIES[n % len(QUERIES)],))
        worker.start()
        worker.join()
        time.sleep(0.05)  # an agent's calls come apart, not back to back
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=40)
    parser.add_argument("--no-docs", action="store_true")
    options = parser.parse_args()
    folder = config.embedding_model_dir(ROOT)
    if not config.embedding_backend_ready(folder):
        raise SystemExit("no embedding model (make embeddings)")
    tune_for_serving()
    texts = [path.read_text(encoding="utf-8") for path in sorted(DOCS_DIR.glob("*.*"))]
    texts = [text for text in texts if not text.lstrip().startswith("[")]  # not the manifest
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    responses = ResponseEmbeddings(model_dir=folder, max_bytes=0, wait_seconds=0)
    searched = compressor.prepare("files__read", text_of_size(texts, SEARCHED_BYTES), threshold=1)
    label = searched.index().label
    rank = hybrid_ranker(store, None, responses)
    timed_searches(store, label, rank, 5)  # warm-up
    idle = timed_searches(store, label, rank, options.searches)

    busy_embeddings = ResponseEmbeddings(model_dir=folder, max_bytes=2**20, wait_seconds=0)
    for n in range(3):
        rotated = texts[n * 5 :] + texts[: n * 5]
        text = text_of_size(rotated, EMBEDDED_KIB * 1024)
        compression = compressor.prepare("files__read", text, threshold=1)
        busy_embeddings.schedule(store, compression)
    time.sleep(2)  # the queue's thread is embedding by now
    wall, cpu = time.perf_counter(), time.process_time()
    busy = timed_searches(store, label, rank, options.searches)
    share = (time.process_time() - cpu) / (time.perf_counter() - wall)
    busy_embeddings.close()

    ratio = statistics.median(busy) / statistics.median(idle)
    verdict = "**met**" if ratio <= TARGET else "**missed**"
    text = "\n".join(
        [
            "## IndexSearch while responses are embedded",
            "",
            f"Run {_docs.machine()}, with `.venv/bin/python "
            f"benchmarks/search_while_embedding.py --searches {options.searches}`.",
            "",
            f"IndexSearch on a {SEARCHED_BYTES // 1000} KB response (keywords: it has no "
            "vectors), in a worker thread as the gateway runs it, in a process tuned as the "
            "serving one; *busy*: while the worker's embedding queue embeds three other "
            f"{EMBEDDED_KIB} KiB responses with the real model.",
            "",
            "| state | searches | median ms | p90 ms | max ms |",
            "|---|---:|---:|---:|---:|",
            *(
                f"| {name} | {len(values)} | {statistics.median(values) * 1000:.1f} "
                f"| {sorted(values)[int(0.9 * len(values))] * 1000:.1f} "
                f"| {max(values) * 1000:.1f} |"
                for name, values in (("idle", idle), ("busy", busy))
            ),
            "",
            f"Busy median {ratio:.2f}x the idle one; target <= {TARGET:g}x {verdict}. The "
            f"process used {share:.2f} CPUs while busy (the embedding thread runs at nice "
            "+10: on a machine loaded by other work it gets less, and the searches compete "
            "less with it).",
        ]
    )
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
