"""serve: run LocalRouter's HTTP server, the one LOCALROUTER_SERVER names (daphne or uvicorn)."""

import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand

from gateway.operations.metrics import multiprocess
from gateway.serving import daphne_server, uvicorn_server


class Command(BaseCommand):
    help = (
        "Serve LocalRouter (admin and /mcp) over HTTP with uvicorn (default) or daphne, "
        "as LOCALROUTER_SERVER says."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", help="address to listen on (default: HOST, else 127.0.0.1)")
        parser.add_argument("--port", type=int, help="port to listen on (default: PORT, else 8000)")

    def handle(self, *args, host: str | None, port: int | None, **options) -> None:
        host = host or settings.SERVE_HOST
        port = port or settings.SERVE_PORT
        # /metrics: this host's workers add up their counts in one folder, which the library
        # must know of before it is imported in the serving process (its first import).
        if settings.METRICS_TOKEN and multiprocess.join(multiprocess.folder_for(settings.DATA_DIR)):
            sys.stdout.flush()
            os.execv(sys.executable, sys.orig_argv)  # the same command, the same pid
        base = f"http://{host}:{port}"
        self.stdout.write(
            f"LocalRouter: serving; admin at {base}/admin/  MCP endpoint at {base}/mcp"
        )
        # Neither server rewrites the client's address from X-Forwarded-For (daphne would
        # take the left-most entry, which the client writes): localrouter/client_address.py
        # reads it from LOCALROUTER_TRUSTED_PROXIES only. X-Forwarded-Proto is Django's
        # (SECURE_PROXY_SSL_HEADER, behind a TLS proxy).
        server = uvicorn_server if settings.HTTP_SERVER == "uvicorn" else daphne_server
        try:
            server.serve(host, port)
        finally:
            multiprocess.leave()  # this worker's live gauges leave the host's sums
