"""Debian's HAProxy or nginx in front of live workers, configured as docs/deploy.md says.

The documented configuration is the one under test: HAProxy's `backend localrouter` block,
nginx's `map`, `upstream` and `server` blocks, with the workers `w8001` and `w8002` pointed
at the workers' loopback ports (the third worker of the examples is left out), and plain
HTTP on a free loopback port instead of TLS.
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
NGINX_BLOCK = re.compile(r"```nginx\n(map \$http_mcp_session_id.*?)```", re.DOTALL)
NGINX_MAIN = """\
daemon off;
master_process off;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
{site}
}}
"""
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


def documented_nginx(ports: dict[str, int], listen: int) -> str:
    """The doc's nginx site with only the workers in `ports`, on plain HTTP at `listen`."""
    block = NGINX_BLOCK.search(DEPLOY_DOC.read_text())
    assert block is not None, "docs/deploy.md has no ```nginx block with the session map"
    documented = {f"127.0.0.1:{route[1:]}": f"127.0.0.1:{port}" for route, port in ports.items()}
    lines, skipping = [], False
    for line in block.group(1).split("server {\n    listen 80;")[0].splitlines():
        if skipping:  # the block of a worker left out
            skipping = line != "}"
            continue
        if "ssl" in line or "http2" in line or "8003" in line:
            if "listen 443" in line:
                lines.append(f"    listen 127.0.0.1:{listen};")
            skipping = line.rstrip().endswith("{")
            continue
        for address, actual in documented.items():
            line = line.replace(address, actual)
        lines.append(line)
    return "\n".join(lines)


@contextmanager
def nginx(ports: dict[str, int], folder: Path) -> Iterator[str]:
    """nginx with the documented site over these workers; yields its /mcp URL."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    listen = free_port()
    config = folder / "nginx.conf"
    site = documented_nginx(ports, listen)
    config.write_text(NGINX_MAIN.format(folder=folder, site=site))
    checked = subprocess.run([binary, "-t", "-c", str(config)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with (folder / "nginx.log").open("wb") as log:
        process = subprocess.Popen([binary, "-c", str(config)], stdout=log, stderr=log)
    try:
        wait_for_port(process, listen, 30)
        yield f"http://127.0.0.1:{listen}/mcp"
    finally:
        stop_process(process)


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
