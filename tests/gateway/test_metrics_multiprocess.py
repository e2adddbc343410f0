"""The metrics folder one host's workers share: who empties it, and what a dead worker leaves.

Each "worker" here is a real process of this project that joins the folder and counts one
call and one live session, as a served worker would.
"""

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from prometheus_client.multiprocess import MultiProcessCollector

from gateway.operations.metrics import multiprocess
from tests.fresh_interpreter import ROOT, run_fresh

WORKER = """
import sys
from pathlib import Path
from gateway.operations.metrics import multiprocess
multiprocess.join(Path(sys.argv[1]))
from prometheus_client import Counter, Gauge
Counter("calls", "Calls.").inc()
Gauge("sessions", "Live sessions.", multiprocess_mode="livesum").inc()
print("counted", flush=True)
if sys.argv[2:] == ["stay"]:
    sys.stdin.read()
"""


@pytest.fixture(autouse=True)
def own_environment(monkeypatch):
    """`join` sets the library's variable for this process: undone after each test (set first,
    so that monkeypatch removes it again even when it was unset: a leaked folder would be
    shared by every gateway the later tests of this process start)."""
    monkeypatch.setenv(multiprocess.ENVIRONMENT, "")
    monkeypatch.delenv(multiprocess.ENVIRONMENT)


def totals(folder) -> dict[str, float]:
    """What a scrape of the folder adds up, by sample name."""
    collected = MultiProcessCollector(None, path=str(folder)).collect()
    return {s.name: s.value for metric in collected for s in metric.samples}


def pid_files(folder) -> list[str]:
    return sorted(p.name for p in folder.glob("worker-*.pid"))


def worker_that_died(folder) -> None:
    """A worker that counted and was killed (it never said goodbye)."""
    assert run_fresh(WORKER, str(folder)) == ["counted"]


@contextmanager
def running_worker(folder) -> Iterator[subprocess.Popen]:
    """A worker that counted and runs until the block ends (then it is killed)."""
    env = {k: v for k, v in os.environ.items() if k != multiprocess.ENVIRONMENT}
    with subprocess.Popen(
        [sys.executable, "-c", WORKER, str(folder), "stay"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as worker:
        try:
            assert worker.stdout.readline() == "counted\n"
            yield worker
        finally:
            worker.kill()


def test_a_worker_starting_alone_empties_the_folder(tmp_path):
    worker_that_died(tmp_path)
    worker_that_died(tmp_path)  # alone too: the first one's counts went
    assert totals(tmp_path) == {"calls_total": 1, "sessions": 1}
    multiprocess.join(tmp_path)
    assert totals(tmp_path) == {}
    assert pid_files(tmp_path) == [f"worker-{os.getpid()}.pid"]
    assert os.environ[multiprocess.ENVIRONMENT] == str(tmp_path)


def test_a_worker_joining_a_running_one_keeps_every_count(tmp_path):
    with running_worker(tmp_path) as running:
        worker_that_died(tmp_path)  # it joined the running one: nothing was emptied
        multiprocess.join(tmp_path)  # the dead one is marked dead, the running one kept
        assert totals(tmp_path) == {"calls_total": 2, "sessions": 1}
        assert pid_files(tmp_path) == sorted(
            [f"worker-{running.pid}.pid", f"worker-{os.getpid()}.pid"]
        )
    assert multiprocess.forget_dead(tmp_path) == 0  # as a scrape does
    assert totals(tmp_path) == {"calls_total": 2}  # no live worker holds a session


def test_a_worker_that_leaves_takes_its_live_gauges_and_keeps_its_counts(tmp_path):
    multiprocess.join(tmp_path)
    (tmp_path / f"gauge_livesum_{os.getpid()}.db").write_bytes(b"")
    multiprocess.leave()
    assert pid_files(tmp_path) == []
    assert not list(tmp_path.glob("gauge_livesum_*.db"))


def test_joining_twice_in_one_process_keeps_what_it_counted_meanwhile(tmp_path):
    multiprocess.join(tmp_path)
    mine = tmp_path / f"counter_{os.getpid()}.db"
    mine.write_bytes(b"")  # as the library's first import after the exec would
    multiprocess.join(tmp_path)
    assert mine.exists()


def test_join_says_when_the_library_was_imported_without_the_folder(tmp_path):
    assert "prometheus_client" in sys.modules  # imported by this test module
    assert multiprocess.join(tmp_path) is True
    assert multiprocess.join(tmp_path) is False  # set now: what imports it next uses it
