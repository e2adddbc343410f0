"""Process-wide tuning belongs to serving: loading Django's apps leaves the interpreter as is."""

import pytest

from indexing.engine.compressor import SWITCH_INTERVAL_SECONDS
from tests.fresh_interpreter import run_fresh

PYTHON_DEFAULT = 0.005


def switch_interval_after(statements: str) -> float:
    """The switch interval a fresh interpreter has after running `statements`."""
    script = (
        "import os, sys\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'localrouter.settings')\n"
        f"{statements}\n"
        "print(sys.getswitchinterval())\n"
    )
    return float(run_fresh(script)[-1])


def test_loading_the_apps_keeps_the_interpreters_switch_interval() -> None:
    assert switch_interval_after("import django; django.setup()") == PYTHON_DEFAULT


def test_the_asgi_entry_point_tunes_thread_switching_for_serving() -> None:
    tuned = switch_interval_after("import localrouter.asgi")
    assert tuned == pytest.approx(SWITCH_INTERVAL_SECONDS)  # stored in microseconds
