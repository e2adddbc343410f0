"""The layer checker that `make lint` and `make test` run: the real code keeps its contracts,
and an import across a layer, module-level or inside a function, breaks them. No module
imports itself through others."""

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
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


def import_circles() -> list[str]:
    """Each direct import between the project's modules that the imported module leads back
    from, as the circle it closes (imports inside functions and type-only ones count too)."""
    graph = grimp.build_graph(*APPS, cache_dir=None)
    circles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module, as_packages=False)
            if back:
                circles.append(" -> ".join([module, *back]))
    return circles


def test_the_code_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout
    assert "4 kept, 0 broken" in result.stdout


def test_no_module_imports_itself_through_others() -> None:
    assert import_circles() == []


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


def test_the_gateway_may_not_import_the_engine_past_indexings_api(copy) -> None:
    with (copy / "gateway" / "sessions" / "index.py").open("a") as module:
        module.write("\nfrom indexing.engine.store import SessionStore as Store  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "search engine only through indexing's MCP-facing API BROKEN" in result.stdout
    assert "gateway.sessions.index -> indexing.engine.store" in result.stdout


def test_upstream_connections_may_not_import_django_even_through_the_gateway(copy) -> None:
    with (copy / "gateway" / "upstreams" / "pool.py").open("a") as module:
        module.write("\n\ndef probe():\n    from gateway.runtime import running_gateway  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "Upstream connections import no Django, clients or indexing BROKEN" in result.stdout
    assert "gateway.upstreams is not allowed to import django" in result.stdout
    assert "gateway.upstreams.pool -> gateway.runtime" in result.stdout


def test_upstream_connections_may_not_import_clients(copy) -> None:
    with (copy / "gateway" / "upstreams" / "spec.py").open("a") as module:
        module.write("\nfrom clients.context_settings import resolve_settings  # noqa\n")
    result = lint_imports(copy)
    assert result.returncode == 1
    assert "gateway.upstreams.spec -> clients.context_settings" in result.stdout
