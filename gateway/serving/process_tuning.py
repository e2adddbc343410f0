"""Process-wide tuning for serving, made by the serve entry points only.

`tune_for_serving` is called by daphne's launcher (`daphne_server.serve`), uvicorn's
(`uvicorn_server.serve`) and the stdio bridge's command (`mcp_stdio`), never when Django
loads its apps or a library module is imported: tests, management commands and the search
engine used on its own keep the interpreter's and the libraries' defaults.
"""

from __future__ import annotations

import gc
import sys

SWITCH_INTERVAL_SECONDS = 0.0001
"""How often the interpreter lets another thread run (Python's default is 0.005)."""
GC_THRESHOLDS = (7000, 50, 100)
"""Allocations between young collections, and young (middle) collections between middle
(full) ones; Python's defaults are (700, 10, 10)."""


def tune_for_serving() -> None:
    """Tune this process for serving: thread switching, numpy's BLAS threads, and the
    cyclic garbage collector."""
    tune_thread_switching()
    limit_blas_threads()
    collect_garbage_less_often()


def tune_thread_switching() -> None:
    """Let an indexing writer thread's SQLite work overlap the chunking thread's Python work.

    Each time the writer comes back from SQLite (more than once a statement) it needs
    the GIL, which a busy chunking thread hands over only at the next switch interval.
    At Python's 5 ms, writing a 5 MiB Markdown response beside its chunking took almost
    as long as after it; 1 ms overlapped the two (1.14x faster, logs 1.23x, code 1.31x);
    0.1 ms gains another 7-10% on 1 MiB responses of every format and nothing at 5 MiB
    (measured side by side with 1 ms, 0.3 ms and 0.03 ms, which gains no more). A busy
    thread is made to switch only when another one waits, so a lone one pays nothing.
    The event loop gets the GIL back sooner from any busy thread too (the gateway
    overhead benchmark measured the same latency and calls/s at 0.1 ms as at 1 ms).
    """
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


def limit_blas_threads() -> None:
    """Run numpy's BLAS on one thread (the hybrid search's sentence encoder uses it).

    The encoder's matrices are small: on a 2-core machine with other work running a query
    took 25 ms on two OpenBLAS threads against 9 ms on one, and the pool's threads would
    also escape the embedding thread's low priority. The vectors are the same either way.
    numpy is imported first: the limit reaches only BLAS libraries already loaded.
    """
    import numpy  # noqa: F401 - loads numpy's BLAS, so that the limit applies to it
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def collect_garbage_less_often() -> None:
    """Keep what the process has loaded out of the collector's scans, and collect less often.

    Every call allocates thousands of objects (the SDK's pydantic models, anyio's streams and
    cancel scopes, the HTTP server's request), so at Python's thresholds the collector ran a
    young collection every few calls and, now and then, a full one that walked every object
    the process holds: Django, the SDK, their schemas. Timed under the gateway overhead
    benchmark's concurrent load on a loaded machine, daphne spent about 1.5 ms of wall time
    per call in collections (0.3 s for each full one), against 4 to 5 ms of CPU per call.
    The objects loaded so far (modules, classes, settings) are frozen out of every scan
    (`gc.freeze`); the thresholds then make young collections ten times rarer and full
    ones rarer still. Garbage without cycles is freed at once, by reference counting, as
    before; a cycle lives longer, until its generation's turn comes.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
