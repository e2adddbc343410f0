"""Debian's HAProxy in front of live workers, configured with docs/deploy.md's own backend.

The `backend localrouter` block of docs/deploy.md is the configuration under test: its
servers `w8001` and `w8002` are pointed at the workers' loopback ports (the other servers
of the example are left out), and a plain-HTTP frontend on a free loopback port is put in
front of it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.live import ROOT
from tests.fixtures.http_server import free_port, stop_process, wait_for_port

DEPLOY_DOC = ROOT / "docs" / "deploy.md"
BLOCK = re.compile(r"```haproxy\n(backend localrouter\n.*?)```", re.DOTALL)
FRONT = """\
global
    maxconn 1024

defaults
    mode http
    timeout client 1h
    timeout http-keep-alive 60s

frontend mcp
    bind 127.0.0.1:{port}
    default_backend localrouter

"""


def documented_backend(ports: dict[str, int]) -> str:
    """The doc's backend with only the servers named in `ports` (name -> loopback port)."""
    block = BLOCK.search(DEPLOY_DOC.read_text())
    assert block is not None, "docs/deploy.md has no ```haproxy backend localrouter block"
    lines = []
    for line in block.group(1).splitlines():
        words = line.split()
        if words[:1] == ["server"] or words[:1] == ["use-server"]:
            if words[1] not in ports:
                continue
            if words[0] == "server":
                line = line.replace(words[2], f"127.0.0.1:{ports[words[1]]}")
        lines.append(line)
    return "\n".join(lines) + "\n"


@contextmanager
def haproxy(ports: dict[str, int], folder: Path) -> Iterator[str]:
    """HAProxy with the documented backend over these workers; yields its /mcp URL."""
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    listen = free_port()
    config = folder / "haproxy.cfg"
    config.write_text(FRONT.format(port=listen) + documented_backend(ports))
    checked = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with (folder / "haproxy.log").open("wb") as log:
        process = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=log, stderr=log)
    try:
        wait_for_port(process, listen, 30)
        yield f"http://127.0.0.1:{listen}/mcp"
    finally:
        stop_process(process)
