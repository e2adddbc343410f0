"""Process-wide tuning belongs to serving: loading Django's apps leaves the interpreter as is."""

import subprocess
import sys
from pathlib import Path

import pytest

from indexing.engine.compressor import SWITCH_INTERVAL_SECONDS

ROOT = Path(__file__).resolve().parent.parent
PYTHON_DEFAULT = 0.005


def switch_interval_after(statements: str) -> float:
    """The switch interval a fresh interpreter has after running `statements`."""
    script = (
        "import os, sys\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'localrouter.settings')\n"
        f"{statements}\n"
        "print(sys.getswitchinterval())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(result.stdout.strip().splitlines()[-1])


def test_loading_the_apps_keeps_the_interpreters_switch_interval() -> None:
    assert switch_interval_after("import django; django.setup()") == PYTHON_DEFAULT


def test_the_asgi_entry_point_tunes_thread_switching_for_serving() -> None:
    tuned = switch_interval_after("import localrouter.asgi")
    assert tuned == pytest.approx(SWITCH_INTERVAL_SECONDS)  # stored in microseconds
