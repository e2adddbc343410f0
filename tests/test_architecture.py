"""The layer checker that `make lint` and `make test` run: the real code keeps its contracts,
and an import across a layer, module-level or inside a function, breaks them."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("localrouter", "clients", "indexing", "gateway")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=project,
        env={"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The apps' Python files and the contracts, copied where a test may break them."""
    for app in APPS:
        shutil.copytree(ROOT / app, tmp_path / app, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_code_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout
    assert "2 kept, 0 broken" in result.stdout


def test_a_function_local_import_of_the_gateway_in_indexing_breaks_the_layers(copy) -> None:
    with (copy / "indexing" / "reports" / "charts.py").open("a") as module:
        module.write("\n\ndef probe():\n    from gateway.models import Upstream  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "indexing.reports.charts -> gateway.models" in result.stdout


def test_the_engine_may_not_import_django_or_the_rest_of_indexing(copy) -> None:
    with (copy / "indexing" / "engine" / "labels.py").open("a") as module:
        module.write("\nfrom indexing.reports.models import SessionRecord  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "indexing.engine.labels -> indexing.reports.models" in result.stdout
