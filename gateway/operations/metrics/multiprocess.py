"""The folder where the workers of one host add up their counts (prometheus_client's
multiprocess mode), and the rule for workers that start and stop one by one.

prometheus_client chooses where its values live when it is first imported: with
PROMETHEUS_MULTIPROC_DIR set, in files of that folder named by process id, which a scrape
of any worker adds up. `manage.py serve` calls `join` before the serving process imports
the library.

The library asks for the folder to be emptied between runs, which a parent process does for
its children; workers under systemd start and stop one at a time, with no such parent. So:

- every running worker keeps a `worker-<pid>.pid` file in the folder;
- a worker that starts while no other worker's file names a live process empties the
  folder: the counts start from zero, which Prometheus reads as a counter reset;
- one that starts while others run keeps every file: a restarted worker's counts stay in the
  sums, so counters never go backwards during a rolling restart;
- a worker that stops (`leave`), or is found dead (by a starting worker or by a scrape), is
  marked dead: its live gauges (sessions, upstream states) drop out of the sums, while its
  counters and histograms stay.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ENVIRONMENT = "PROMETHEUS_MULTIPROC_DIR"
LOCK_FILE = ".lock"
PID_PREFIX, PID_SUFFIX = "worker-", ".pid"


def folder_for(data_dir: Path) -> Path:
    """The host's folder: PROMETHEUS_MULTIPROC_DIR when set, else `metrics` in the data dir."""
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured) if configured else data_dir / "metrics"


def active_folder() -> Path | None:
    """The folder this process counts in; None: its own registry alone (tests, by hand)."""
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured) if configured else None


def join(folder: Path) -> bool:
    """Count in `folder` from now on, as a worker of this host (idempotent).

    Returns whether prometheus_client was imported before: then this process must start
    afresh (exec) for the library to count in the folder.
    """
    imported_before = "prometheus_client" in sys.modules and active_folder() != folder
    folder.mkdir(parents=True, exist_ok=True)
    os.environ[ENVIRONMENT] = str(folder)
    me = os.getpid()
    mine = _pid_file(folder, me)
    with _locked(folder):
        if mine.is_file() and mine.read_text() == _process_facts(me)[1]:
            return imported_before  # joined already, before an exec
        if forget_dead(folder, locked=True) == 0:
            for stale in folder.glob("*.db"):
                # This process's own files (a library imported with the folder set) stay.
                if not stale.name.endswith(f"_{me}.db"):
                    stale.unlink()
        mine.write_text(_process_facts(me)[1])
    return imported_before


def leave() -> None:
    """This worker stops: its live gauges leave the sums and its pid file goes."""
    folder = active_folder()
    if folder is None or not folder.is_dir():
        return
    from prometheus_client.multiprocess import mark_process_dead

    with _locked(folder):
        mark_process_dead(os.getpid(), str(folder))
        _pid_file(folder, os.getpid()).unlink(missing_ok=True)


def forget_dead(folder: Path, *, locked: bool = False) -> int:
    """Mark dead the workers whose process is gone; how many other workers live."""
    from prometheus_client.multiprocess import mark_process_dead

    with contextlib.nullcontext() if locked else _locked(folder):
        alive = 0
        for pid_file in folder.glob(f"{PID_PREFIX}*{PID_SUFFIX}"):
            pid = int(pid_file.name.removeprefix(PID_PREFIX).removesuffix(PID_SUFFIX))
            if pid == os.getpid():
                continue
            if _alive(pid, pid_file.read_text()):
                alive += 1
            else:
                mark_process_dead(pid, str(folder))
                pid_file.unlink(missing_ok=True)
        return alive


def _pid_file(folder: Path, pid: int) -> Path:
    return folder / f"{PID_PREFIX}{pid}{PID_SUFFIX}"


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One worker at a time reads and changes the pid files (two may start at once)."""
    with (folder / LOCK_FILE).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _alive(pid: int, started: str) -> bool:
    """Whether `pid` is still the worker that wrote its pid file (a pid may be reused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    state, now_started = _process_facts(pid)
    return state != "Z" and (not started or now_started in ("", started))


def _process_facts(pid: int) -> tuple[str, str]:
    """(state, start time) from /proc on Linux, e.g. ('S', '81234'); ('', '') elsewhere."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "", ""
    fields = stat.rsplit(")", 1)[1].split()  # the name in parentheses may hold spaces
    return fields[0], fields[19]
