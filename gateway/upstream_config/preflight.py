"""What keeps an upstream from starting that can be told without starting it.

The admin's upstream list asks this for upstreams this worker has not started yet, so a
missing command or an unset `${VAR}` shows before a client first needs the upstream.
"""

from __future__ import annotations

import os
import shutil

from gateway.models import Upstream
from gateway.upstream_config.directory import spec_for


def start_problem(upstream: Upstream) -> str | None:
    """Why `upstream` cannot start as configured (None when nothing is known to be wrong)."""
    try:
        spec = spec_for(upstream)
    except ValueError as error:  # the spec's own checks (e.g. no command)
        return str(error).removeprefix(f"upstream {upstream.name!r}: ")
    if spec.unset:
        return f"set {', '.join(spec.unset)} in the gateway's environment (or .env file)"
    if spec.transport != "stdio" or _command_found(spec.command, spec.cwd, spec.env):
        return None
    # The command as stored: a filled-in placeholder could hold a secret.
    return f"command not found: {upstream.command}"


def _command_found(command: str | None, cwd: str | None, env: dict[str, str]) -> bool:
    """Whether the process could be spawned: found on its PATH, or a path that is executable
    (relative to its working directory, as the operating system resolves it)."""
    if not command:
        return False
    if os.sep in command:
        path = os.path.join(cwd or "", command)
        return os.path.isfile(path) and os.access(path, os.X_OK)
    search_path = env.get("PATH") or os.environ.get("PATH", os.defpath)
    return shutil.which(command, path=search_path) is not None
