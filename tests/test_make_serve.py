"""`make serve` reaches a serving gateway on a machine without Node.js or npm, at the
address `.env` gives.

It runs the real Makefile in a copy of the project whose `.venv` and search model stand in
for installed ones (their stamps newer than pyproject.toml and requirements.lock, as after a
first run), so the shared environment is neither reinstalled nor changed.
"""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tests.fixtures.http_server import free_port, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
TOOLS = ("make", "sh", "touch", "rm")
LONG_AGO = 1_000_000_000  # 2001: older than anything installed


def project_copy(tmp: Path) -> Path:
    """The tracked files, a venv of links to this one, and the installed model."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    project = tmp / "project"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, project / name)
    for source in ("pyproject.toml", "requirements.lock"):  # what the venv is installed from
        os.utime(project / source, (LONG_AGO, LONG_AGO))
    venv = project / ".venv"
    venv.mkdir()
    for entry in ("bin", "lib", "lib64", "include", "pyvenv.cfg"):
        if (VENV / entry).exists():
            (venv / entry).symlink_to(VENV / entry)
    (venv / ".installed").touch()
    os.utime(venv / ".installed", (LONG_AGO + 1, LONG_AGO + 1))
    (project / "var").mkdir()
    (project / "var" / "models").symlink_to((ROOT / "var" / "models").resolve())
    return project


def path_without_npm(tmp: Path) -> str:
    """A PATH holding only the few tools the Makefile uses."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    assert shutil.which("npm", path=str(bin_dir)) is None
    return str(bin_dir)


@pytest.mark.skipif(
    not (ROOT / "var/models/all-MiniLM-L6-v2/model.safetensors").exists(),
    reason="needs the search model that make fetches (var/models)",
)
def test_make_serve_serves_without_npm_on_the_path_where_dotenv_says(tmp_path):
    project = project_copy(tmp_path)
    port = free_port()
    (project / ".env").write_text(f"HOST=127.0.0.1\nPORT={port}\n")
    env = {
        "PATH": path_without_npm(tmp_path),
        "HOME": str(tmp_path),
        "LOCALROUTER_DATA_DIR": str(tmp_path / "data"),
        "LOCALROUTER_ADMIN_PASSWORD": "a-long-test-password",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        make = subprocess.Popen(
            ["make", "serve"],
            cwd=project,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        wait_for_port(make, port, 120)
        response = httpx2.get(f"http://127.0.0.1:{port}/admin/login/", timeout=30)
        assert response.status_code == 200
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=30)
    output = log.read_text()
    assert f"Log in at http://127.0.0.1:{port}/admin/ with" in output
    assert f"LocalRouter: serving; admin at http://127.0.0.1:{port}/admin/" in output
    assert "npm" not in output
