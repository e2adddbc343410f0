"""Libraries' private names appear only in their seam modules (gateway/seams/).

ruff's banned-api (TID251, pyproject.toml) refuses the private modules and module-level
names the seams use, anywhere else. It cannot see private attributes of objects
(`ctx.session._connection`), nor a library's private names it was not told of: this walk of
every module of the four apps can. Within the project, a module may use its own private
names and a class those it defines (another instance of itself included); documented names
that merely start with an underscore are allowed. Tests and benchmarks are not walked: they
may reach into the project's own internals to set up a case, and a library's only where the
test is about that library (docs/architecture.md, Seams to libraries).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("localrouter", "clients", "indexing", "gateway")
PROJECT = {*APPS, "tests", "benchmarks"}
SEAMS = ROOT / "gateway" / "seams"
RUFF = Path(sys.executable).with_name("ruff")
# Public API despite the underscore: Django's Model._meta (its documented Meta API) and
# namedtuple's methods.
DOCUMENTED = {"_meta", "_replace", "_asdict", "_fields", "_make"}
NAME_ARGUMENT = {"getattr", "setattr", "hasattr", "delattr"}


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def root_name(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (`a` of `a.b.c`), if it is a plain name."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def defined_in(cls: ast.ClassDef) -> set[str]:
    """The names a class defines: in its body, and as attributes of self or cls."""
    names: set[str] = set()
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    for node in ast.walk(cls):
        is_store = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        if is_store and root_name(node.value) in {"self", "cls"}:
            names.add(node.attr)
    return names


class PrivateUses(ast.NodeVisitor):
    """Private names of other code that one module uses: `(line, what)`."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.project_names: set[str] = set()  # bound by imports from the project
        self.classes: list[set[str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] in PROJECT:
                self.project_names.add(alias.asname or parts[0])
            elif any(is_private(part) for part in parts):
                self.found.append((node.lineno, f"import {alias.name}"))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        parts = (node.module or "").split(".")
        if node.level or parts[0] in PROJECT:
            self.project_names.update(alias.asname or alias.name for alias in node.names)
            return
        for alias in node.names:
            if any(is_private(part) for part in [*parts, alias.name]):
                self.found.append((node.lineno, f"from {node.module} import {alias.name}"))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(defined_in(node))
        self.generic_visit(node)
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if is_private(node.attr) and not self.allowed(node.value, node.attr):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.args[1] if len(node.args) > 1 else None
        if (
            isinstance(node.func, ast.Name)
            and node.func.id in NAME_ARGUMENT
            and isinstance(name, ast.Constant)
            and isinstance(name.value, str)
            and is_private(name.value)
            and not self.allowed(node.args[0], name.value)
        ):
            self.found.append((node.lineno, ast.unparse(node)))
        self.generic_visit(node)

    def allowed(self, owner: ast.expr, name: str) -> bool:
        if name in DOCUMENTED:
            return True
        if isinstance(owner, ast.Call) and ast.unparse(owner.func) == "super":
            return False  # a base class's private name, whatever this class defines
        if isinstance(owner, ast.Name) and owner.id in {"self", "cls"}:
            return True
        if root_name(owner) in self.project_names:  # a module of the project, or its names
            return True
        return any(name in names for names in self.classes)


def private_uses(source: str) -> list[tuple[int, str]]:
    """Private names of libraries (or of other classes) that a module's source uses."""
    visitor = PrivateUses()
    visitor.visit(ast.parse(source))
    return sorted(visitor.found)


def project_modules() -> Iterator[Path]:
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if SEAMS not in path.parents:
                yield path


def test_no_module_outside_the_seams_uses_a_private_name_of_a_library() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in project_modules()
        for line, what in private_uses(path.read_text())
    ]
    assert not found, "private names outside gateway/seams/:\n" + "\n".join(found)


def test_the_walk_finds_private_attributes_imports_and_base_class_hooks() -> None:
    source = (
        "from mcp.client import stdio as sdk_stdio\n"
        "from mcp.client._transport import TransportStreams\n"
        "from django import forms\n"
        "def connection_of(ctx):\n"
        "    return ctx.session._connection\n"
        "async def drain(process):\n"
        "    await sdk_stdio._drain_stdout(process)\n"
        "class Form(forms.ModelForm):\n"
        "    def _post_clean(self):\n"
        "        super()._post_clean()\n"
        "def manager_sessions(manager):\n"
        "    return getattr(manager, '_server_instances')\n"
        "class Reservation:\n"
        "    def commit(self):\n"
        "        return self.store._commit(self)\n"
    )
    assert private_uses(source) == [
        (2, "from mcp.client._transport import TransportStreams"),
        (5, "ctx.session._connection"),
        (7, "sdk_stdio._drain_stdout"),
        (10, "super()._post_clean"),
        (12, "getattr(manager, '_server_instances')"),
        (15, "self.store._commit"),
    ]


def test_the_walk_allows_a_class_its_own_names_and_the_project_its_modules() -> None:
    source = (
        "from gateway.catalog import listings\n"
        "class Lines:\n"
        "    def __init__(self):\n"
        "        self._waiting = []\n"
        "    @classmethod\n"
        "    def of(cls, text):\n"
        "        lines = cls()\n"
        "        lines._waiting.append(text)\n"
        "        return lines\n"
        "def peek(record, point):\n"
        "    return listings._listings, record._meta, point._replace(x=1)\n"
    )
    assert private_uses(source) == []


def ruff_banned_api(path: str, source: str) -> subprocess.CompletedProcess:
    """ruff's banned-api check of `source` as if it were the project's file `path`."""
    return subprocess.run(
        [str(RUFF), "check", "--select", "TID251", "--output-format", "concise"]
        + ["--stdin-filename", path, "-"],
        input=source,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_ruff_refuses_an_sdk_private_module_outside_its_seam() -> None:
    source = "from mcp.shared._httpx_utils import create_mcp_http_client\n"
    refused = ruff_banned_api("gateway/upstreams/transport.py", source)
    assert refused.returncode == 1
    assert "TID251 `mcp.shared._httpx_utils` is banned" in refused.stdout
    assert "use gateway.seams.mcp_sdk_seam" in refused.stdout
    assert ruff_banned_api("gateway/seams/mcp_sdk_seam.py", source).returncode == 0


def test_ruff_refuses_a_private_name_reached_through_a_library_module() -> None:
    source = "from twisted.web import http\n\nparse = http._parseContentType\n"
    refused = ruff_banned_api("gateway/serving/daphne_server.py", source)
    assert refused.returncode == 1
    assert "`twisted.web.http._parseContentType` is banned" in refused.stdout
