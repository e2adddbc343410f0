"""The e2e tests' live gateway, run from a benchmark script (or from the tests themselves).

Importing this module sets Django up (the live gateway helpers write a gateway's database with
the ORM); `gateway_databases_ready()` gives the scripts the template database that
`tests/conftest.py` gives the tests, and leaves the tests' own one alone.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")
django.setup()

from tests.e2e import gateway_db  # noqa: E402


@contextlib.contextmanager
def gateway_databases_ready() -> Iterator[None]:
    """Within: `tests.e2e.live` can start gateways (a template database in a temporary folder,
    unless a test session already installed its own)."""
    if gateway_db._databases is not None:  # under pytest: the session fixture's
        yield
        return
    with (
        tempfile.TemporaryDirectory(prefix="localrouter-bench-db-") as folder,
        gateway_db.gateway_databases(Path(folder), contextlib.nullcontext),
    ):
        yield
