"""IndexSearch while the worker embeds responses: does the search stay near its idle latency?

Run from the repository root (needs the embedding model and node_modules), not under nice
(the gateway's own priorities are measured):

    .venv/bin/python benchmarks/search_while_embedding.py [--searches 40] [--rounds 4]
        [--rereads 2]
    .venv/bin/python benchmarks/search_while_embedding.py --in-process [--searches 40]

By default over HTTP, as an agent sees it (`benchmarks/_live_embedding.py`): daphne on
127.0.0.1 with a fresh data dir, `server-filesystem` as the upstream, an SDK session reading
a 482 KB file and timing IndexSearch on it in rounds, idle (its vectors done, nothing
embedding) and busy (another session's reads of 256 KiB being embedded) in turn, with the
same hybrid ranking in both; then while its own earlier reads and re-reads are embedded, and
on a re-read of the searched file searched at once (the intended wait for its own vectors).
About 7 minutes on 2 cores at load average 6, most of it embedding (less on a quiet machine).

`--in-process`: one process tuned as the gateway's serving process (`tune_for_serving`:
the switch interval, one BLAS thread). A session store holds the 482 KB response without
vectors; IndexSearch calls on it (`search_with_labels` with the session's hybrid ranker, in
a worker thread as the gateway runs them) are timed idle, then while the worker's embedding
queue embeds three other responses of 256 KiB (`ResponseEmbeddings`, the real model).

Target: the busy median within 1.5x the idle one. Markdown to stdout and docs/benchmarks.md
(sections `search_while_embedding` and `search_while_embedding_in_process`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]

from benchmarks import _docs  # noqa: E402
from benchmarks._live_embedding import (  # noqa: E402
    EARLIER_KIB,
    FRESH,
    GAP,
    QUERIES,
    REUSED_SECONDS,
    SEARCHED_BYTES,
    filesystem_upstream,
    gateway_databases_ready,
    measure,
    p90,
    report,
    write_files,
)
from benchmarks._time_to_vectors import text_of_size  # noqa: E402
from gateway.serving.process_tuning import tune_for_serving  # noqa: E402
from indexing.api.embedding_queue import EMBEDDING_NICENESS  # noqa: E402
from indexing.api.response_embeddings import WAIT_SECONDS, ResponseEmbeddings  # noqa: E402
from indexing.api.session_store import hybrid_ranker  # noqa: E402
from indexing.engine.compressor import ResponseCompressor  # noqa: E402
from indexing.engine.labels import LabelCounter  # noqa: E402
from indexing.engine.search import search_with_labels  # noqa: E402
from indexing.engine.store import SessionStore  # noqa: E402
from localrouter import config  # noqa: E402
from tests.e2e.live import running_gateway  # noqa: E402

SECTION = "search_while_embedding"
DOCS_DIR = ROOT / "benchmarks" / "retrieval_docs"
EARLIER = 4
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
        time.sleep(GAP)
    return seconds


def in_process(searches: int) -> str:
    """The in-process measurement's markdown."""
    folder = config.embedding_model_dir(ROOT)
    tune_for_serving()
    texts = corpus()
    store = SessionStore()
    compressor = ResponseCompressor(store, LabelCounter())
    responses = ResponseEmbeddings(model_dir=folder, max_bytes=0, wait_seconds=0)
    searched = compressor.prepare("files__read", text_of_size(texts, SEARCHED_BYTES), threshold=1)
    label = searched.index().label
    rank = hybrid_ranker(store, None, responses)
    timed_searches(store, label, rank, 5)  # warm-up
    idle = timed_searches(store, label, rank, searches)

    busy_embeddings = ResponseEmbeddings(model_dir=folder, max_bytes=2**20, wait_seconds=0)
    for n in range(3):
        rotated = texts[n * 5 :] + texts[: n * 5]
        text = text_of_size(rotated, EARLIER_KIB * 1024)
        compression = compressor.prepare("files__read", text, threshold=1)
        busy_embeddings.schedule(store, compression)
    time.sleep(2)  # the queue's thread is embedding by now
    wall, cpu = time.perf_counter(), time.process_time()
    busy = timed_searches(store, label, rank, searches)
    share = (time.process_time() - cpu) / (time.perf_counter() - wall)
    busy_embeddings.close()

    ratio = statistics.median(busy) / statistics.median(idle)
    return "\n".join(
        [
            "### In process, by keywords",
            "",
            f"Run {_docs.machine()}, with `.venv/bin/python "
            f"benchmarks/search_while_embedding.py --in-process --searches {searches}`.",
            "",
            f"IndexSearch on a {SEARCHED_BYTES // 1000} KB response (keywords: it has no "
            "vectors), in a worker thread as the gateway runs it, in a process tuned as the "
            "serving one; *busy*: while the worker's embedding queue embeds three other "
            f"{EARLIER_KIB} KiB responses with the real model.",
            "",
            "| state | searches | median ms | p90 ms | max ms |",
            "|---|---:|---:|---:|---:|",
            *(
                f"| {name} | {len(values)} | {statistics.median(values) * 1000:.1f} "
                f"| {p90(values) * 1000:.1f} | {max(values) * 1000:.1f} |"
                for name, values in (("idle", idle), ("busy", busy))
            ),
            "",
            f"Busy median {ratio:.2f}x the idle one; target <= {TARGET:g}x {verdict(ratio)}. "
            f"The process used {share:.2f} CPUs while busy (the embedding thread runs at nice "
            "+10: on a machine loaded by other work it gets less, and the searches compete "
            "less with it).",
        ]
    )


def over_http(searches: int, rounds: int, rereads: int) -> str:
    """The live measurement's markdown."""
    machine = _docs.machine()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="localrouter-embedbench-") as tmp:
        folder = Path(tmp) / "files"
        write_files(folder, corpus(), EARLIER)
        data = Path(tmp) / "data"
        data.mkdir()
        with (
            gateway_databases_ready(),
            running_gateway(data, [filesystem_upstream(folder)], [{"name": "agent"}]) as live,
        ):
            run = asyncio.run(
                measure(live, folder, searches=searches, rounds=rounds, rereads=rereads)
            )
    lines, ratio, own = report(run)
    indexed = [job for job in run.jobs if job[1] is None]
    turn = [job for job in run.jobs if job[1] is not None and job[1] < REUSED_SECONDS]
    embedded = [job for job in run.jobs if job[1] is not None and job[1] >= REUSED_SECONDS]
    return "\n".join(
        [
            "## IndexSearch while responses are embedded",
            "",
            f"Run {machine}, with `.venv/bin/python benchmarks/search_while_embedding.py "
            f"--searches {searches} --rounds {rounds} --rereads {rereads}` "
            f"({(time.perf_counter() - started) / 60:.0f} min).",
            "",
            "Over HTTP as an agent sees it: daphne on 127.0.0.1 (fresh data dir), "
            "`server-filesystem` as the upstream, SDK sessions. The agent reads a "
            f"{SEARCHED_BYTES // 1000} KB file of real text (its vectors came "
            f"{run.vectors_wait:.0f} s after the read) and times IndexSearch on it in "
            f"{rounds} rounds, *idle* (its vectors there, the worker quiet) and *busy* in "
            f"turn: busy while another session has read two {EARLIER_KIB} KiB files, which "
            "the worker's queue embeds (timed once their indexing is done; closing that "
            "session stops their embedding; the worker goes "
            "quiet before the next round). Both rank the same way (hybrid: the searched "
            "response has its vectors), so no search in them waits for vectors: what busy "
            "takes beyond idle is interference. *busy, own session*: the agent itself has "
            f"read {EARLIER} files of {EARLIER_KIB} KiB and {rereads} re-reads of the first "
            "(same content, new labels; timed once they are indexed). *fresh*: the "
            "searched file read again and the new label searched at once, before the rounds "
            "(queue idle) and while the queue "
            "embeds the agent's reads (queue busy): such a search waits up to "
            "`LOCALROUTER_RESPONSE_VECTORS_WAIT_SECONDS` (1 s) for its own vectors when they "
            "are due within it (the intended wait, not interference).",
            "",
            *lines,
            "",
            f"Busy median {ratio:.2f}x the idle one (own session {own:.2f}x); target <= "
            f"{TARGET:g}x {verdict(max(ratio, own))}. Fresh searches of 1 s or more (the "
            f"wait bound): {waited(run.fresh_idle)} of {FRESH} with the queue idle, "
            f"{waited(run.fresh_busy)} of {FRESH} busy. Serving CPU: the worker's threads at "
            f"nice 0, from /proc (the searches and their HTTP); embedding CPU: those at nice "
            f"+{EMBEDDING_NICENESS}. Digest reuse: of the {len(run.jobs)} responses that got "
            f"vectors after the agent's own reads (the first earlier read, its {run.rereads} "
            f"re-reads and the {FRESH} busy re-reads of the searched file; the other earlier "
            f"reads were still waiting when the run stopped), {len(embedded)} embedded "
            f"({', '.join(f'{s:.0f} s' for _, s, _ in embedded)}), {len(turn)} took stored "
            f"vectors in their turn on the queue (under {REUSED_SECONDS:g} s each: read while "
            f"that content was still being embedded) and {len(indexed)} as they were indexed.",
        ]
    )


def waited(window) -> int:
    """Searches of the window that took at least the default wait bound."""
    return sum(seconds >= WAIT_SECONDS for seconds in window.seconds)


def corpus() -> list[str]:
    texts = [path.read_text(encoding="utf-8") for path in sorted(DOCS_DIR.glob("*.*"))]
    return [text for text in texts if not text.lstrip().startswith("[")]  # not the manifest


def verdict(ratio: float) -> str:
    return "**met**" if ratio <= TARGET else "**missed**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--searches", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--rereads", type=int, default=2)
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--no-docs", action="store_true")
    options = parser.parse_args()
    if not config.embedding_backend_ready(config.embedding_model_dir(ROOT)):
        raise SystemExit("no embedding model (make embeddings)")
    if options.in_process:
        section, text = SECTION + "_in_process", in_process(options.searches)
    else:
        section, text = SECTION, over_http(options.searches, options.rounds, options.rereads)
    print(text)
    if not options.no_docs:
        _docs.write_section(section, text)


if __name__ == "__main__":
    main()
