"""daphne's command line with its access log masked: no secret of a request target is written.

daphne writes one access line per request to stdout (`daphne.access.AccessLogGenerator`,
called through `Server.log_action`), with the request target as the client sent it: a
token in the query string (`POST /mcp?token=lr_…`, which /mcp refuses) would be written
in clear. Here every target passes `mask_url` first, the one masking of every log line:
secret-looking query values and userinfo become `***`.

Twisted's HTTP factory also formats a line of its own per request (the target unmasked)
for Twisted's log, which daphne sends nowhere at its default verbosity and into Python's
logging above it. daphne's line is the one access log: Twisted's is not made
(`HTTPFactory.log`, a public method, does nothing), which also saves the 12 µs of CPU a
request it took.

Importing this module imports daphne's server, which creates daphne's event loop: import it
only once the loop policy is set (`gateway/serving/daphne_server.py`).
"""

from __future__ import annotations

from typing import Any

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory
from daphne.server import Server

from localrouter.url_masking import mask_url


class MaskedAccessLogServer(Server):
    """daphne's server, its actions logged with the request target masked."""

    def log_action(self, protocol: str, action: str, details: dict[str, Any]) -> None:
        """Hand the action to daphne's access log, its `path` (the target) masked."""
        target = details.get("path")
        if isinstance(target, str):
            details = {**details, "path": mask_url(target)}
        super().log_action(protocol, action, details)


class MaskedAccessLogCommandLine(CommandLineInterface):
    """`daphne ARGS`, serving with `MaskedAccessLogServer`."""

    server_class = MaskedAccessLogServer


def one_access_log() -> None:
    """Have daphne's HTTP factory skip Twisted's access line (daphne writes its own)."""
    HTTPFactory.log = _no_line


def _no_line(factory: HTTPFactory, request: object) -> None:
    return None
