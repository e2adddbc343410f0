"""A live gateway's SQLite database, used from the test process instead of `manage.py shell`.

Each `manage.py` run costs a Python start and a Django setup (seconds on a busy machine). The
test process already has Django set up, so it reads and writes a gateway's database with the
ORM directly: in a thread of its own whose `default` connection is that SQLite file (Django's
connections are per thread), while the test's own database stays untouched. New gateways start
from a copy of one migrated database instead of migrating each time.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from django.db import connections
from django.db.backends.sqlite3.base import DatabaseWrapper

ROOT = Path(__file__).resolve().parents[2]
DATABASE_FILE = "localrouter.sqlite3"  # localrouter.config.database_config's SQLite default


class GatewayDatabases:
    """Migrates one template database on first use and runs ORM code on gateways' databases."""

    def __init__(self, folder: Path, unblock: Callable[[], AbstractContextManager[None]]) -> None:
        self._folder = folder
        self._unblock = unblock  # pytest-django blocks the ORM outside `django_db` tests
        self._template: Path | None = None
        self._lock = threading.Lock()

    def prepare(self, data_dir: Path, env: dict[str, str]) -> None:
        """Give `data_dir` a migrated, empty database (a copy of the template)."""
        with self._lock:
            if self._template is None:
                migrated = subprocess.run(
                    [sys.executable, "manage.py", "migrate", "--noinput"],
                    cwd=ROOT,
                    env={**env, "LOCALROUTER_DATA_DIR": str(self._folder)},
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                assert migrated.returncode == 0, migrated.stderr
                self._template = self._folder / DATABASE_FILE
        shutil.copyfile(self._template, data_dir / DATABASE_FILE)

    def run[T](self, data_dir: Path, function: Callable[[], T]) -> T:
        """`function()` with the ORM's default database being the gateway's in `data_dir`."""
        with self._lock, self._unblock(), ThreadPoolExecutor(1) as thread:
            return thread.submit(_on_database, data_dir / DATABASE_FILE, function).result()


def _on_database[T](path: Path, function: Callable[[], T]) -> T:
    settings = connections.configure_settings(
        {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)}}
    )["default"]
    # The gateway may be writing at that moment: wait for it, and take the write lock at the
    # start of a transaction as the gateway does (localrouter/config.py), or SQLite refuses a
    # read-then-write (update_or_create) at once, whatever the timeout, when the gateway
    # wrote in between.
    settings["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    database = DatabaseWrapper(settings, "default")
    connections["default"] = database  # this thread's connection only
    try:
        return function()
    finally:
        database.close()
        del connections["default"]


_databases: GatewayDatabases | None = None


@contextmanager
def gateway_databases(
    folder: Path, unblock: Callable[[], AbstractContextManager[None]]
) -> Iterator[GatewayDatabases]:
    """Install the session's `GatewayDatabases` for `current()` (a session fixture's body)."""
    global _databases
    _databases = GatewayDatabases(folder, unblock)
    try:
        yield _databases
    finally:
        _databases = None


def current() -> GatewayDatabases:
    assert _databases is not None, "tests/conftest.py's gateway_databases fixture installs it"
    return _databases
