"""Process-wide tuning belongs to serving: the serve entry points tune the process (thread
switching, numpy's BLAS on one thread, the garbage collector's thresholds and what it
scans); loading Django's apps or the ASGI application, or
using the search engine, leaves the interpreter and the libraries as they are."""

import pytest

from gateway.serving.process_tuning import GC_THRESHOLDS, SWITCH_INTERVAL_SECONDS
from indexing.engine.model_folder import model_folder_ready
from tests.fresh_interpreter import run_fresh

PYTHON_DEFAULT = 0.005
PYTHON_GC_THRESHOLDS = (700, 10, 10)
REPORT = (
    "import gc, sys\n"
    "from threadpoolctl import threadpool_info\n"
    "blas = {p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}\n"
    "print(sys.getswitchinterval())\n"
    "print(sorted(blas))\n"
    "print(gc.get_threshold())\n"
    "print(gc.get_freeze_count() > 10000)\n"
)


def tuning_after(statements: str) -> tuple[float, str]:
    """The switch interval and BLAS thread counts a fresh interpreter has after `statements`
    (numpy imported last, so that its BLAS shows either way)."""
    return full_tuning_after(statements)[:2]


def full_tuning_after(statements: str) -> tuple[float, str, str, str]:
    """The switch interval, BLAS thread counts, garbage collector thresholds and whether most
    of the loaded objects are frozen out of its scans, after `statements`."""
    script = (
        "import os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'localrouter.settings')\n"
        "from threadpoolctl import threadpool_limits\n"
        f"{statements}\n"
        "import numpy\n"
        f"{REPORT}"
    )
    interval, blas, thresholds, frozen = run_fresh(script)[-4:]
    return float(interval), blas, thresholds, frozen


def test_loading_the_apps_keeps_the_interpreters_switch_interval() -> None:
    assert tuning_after("import django; django.setup()")[0] == PYTHON_DEFAULT


def test_the_asgi_application_leaves_tuning_to_the_servers() -> None:
    interval, _, thresholds, frozen = full_tuning_after("import localrouter.asgi")
    assert interval == PYTHON_DEFAULT
    assert (thresholds, frozen) == (str(PYTHON_GC_THRESHOLDS), "False")


def test_loading_the_encoder_leaves_blas_as_it_was(settings) -> None:
    if not model_folder_ready(settings.EMBEDDING_MODEL_DIR):
        pytest.skip("all-MiniLM-L6-v2 model folder not found (run `make embeddings`)")
    _, blas = tuning_after(
        "import numpy; threadpool_limits(2, user_api='blas')\n"
        "from pathlib import Path\n"
        "from indexing.engine.hybrid import embedder\n"
        f"assert embedder(Path({str(settings.EMBEDDING_MODEL_DIR)!r})) is not None"
    )
    assert blas == "[2]"


SERVE_ENTRY_POINTS = {
    "daphne": (
        "import django; django.setup()\n"
        "from gateway.serving import daphne_server\n"
        "from daphne.cli import CommandLineInterface\n"
        "CommandLineInterface.run = lambda self, argv: None\n"
        "daphne_server.serve('127.0.0.1', 0)\n"
    ),
    "uvicorn": (
        "import django; django.setup()\n"
        "from gateway.serving import uvicorn_server\n"
        "uvicorn_server.DrainingServer.run = lambda self, sockets=None: None\n"
        "uvicorn_server.serve('127.0.0.1', 0)\n"
    ),
    "stdio bridge": (
        "import django; django.setup()\n"
        "from django.core.management import call_command\n"
        "from gateway.management.commands import mcp_stdio\n"
        "async def served(token): return True\n"
        "mcp_stdio.serve_stdio = served\n"
        "call_command('mcp_stdio', token='lr_x')\n"
    ),
}


@pytest.mark.parametrize("entry_point", SERVE_ENTRY_POINTS)
def test_each_serve_entry_point_tunes_the_process(entry_point: str) -> None:
    """Even with numpy's BLAS on two threads before (it runs on one after)."""
    interval, blas, thresholds, frozen = full_tuning_after(
        "import numpy; threadpool_limits(2, user_api='blas')\n" + SERVE_ENTRY_POINTS[entry_point]
    )
    assert interval == pytest.approx(SWITCH_INTERVAL_SECONDS)  # stored in microseconds
    assert blas == "[1]"
    assert thresholds == str(GC_THRESHOLDS)
    assert frozen == "True"  # what the process had loaded is out of the collector's scans


def test_tuning_reaches_a_blas_loaded_only_by_the_tuning() -> None:
    _, blas = tuning_after(
        "from gateway.serving.process_tuning import tune_for_serving\ntune_for_serving()"
    )
    assert blas == "[1]"
