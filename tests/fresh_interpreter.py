"""Run statements in a fresh interpreter of this project, for what a process sets only once."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_fresh(statements: str, *args: str) -> list[str]:
    """The lines a fresh interpreter prints running `statements` (with `args` as sys.argv[1:])
    in the project's folder."""
    result = subprocess.run(
        [sys.executable, "-c", statements, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout.strip().splitlines()
