"""daphne as LocalRouter's HTTP server, on the uvloop event loop where it is installed.

daphne runs Twisted's reactor on an asyncio loop it creates as `daphne.server` is imported,
so the loop policy must be set before that import. Nothing imports it earlier: `daphne` is
not among the installed apps (its app would import the server as Django starts), so
`manage.py serve` runs daphne in its own process (`serve`), with no second interpreter to
start. uvloop does the loop's own work (callbacks, timers, readiness of sockets and
of the stdio upstreams' pipes) in C; Twisted still parses and writes HTTP.

Twisted parses each request's Content-Type with the `email` package; the header is one of
a handful of values, so the parse is memoised (`gateway/seams/twisted_seam.py`). The process is
tuned for serving (`gateway/serving/process_tuning.py`).

daphne's access log (one line a request, on stdout) names each request target masked
(`gateway/serving/daphne_access_log.py`), and is written line by line, so a pipe to journald or a
file gets each line as its request ends rather than in blocks of several kilobytes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys

from gateway.seams.twisted_seam import memoise_content_type_parse
from gateway.serving import APPLICATION
from gateway.serving.process_tuning import tune_for_serving

logger = logging.getLogger(__name__)


def use_uvloop() -> bool:
    """Make new event loops uvloop's, when it is installed; whether it is."""
    if importlib.util.find_spec("uvloop") is None:
        return False
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def serve(host: str, port: int) -> None:
    """Serve LocalRouter with daphne until SIGTERM/SIGINT (blocks), on uvloop (unless
    daphne's server was imported before: then on the loop it made, and a warning says so)."""
    if "daphne.server" in sys.modules:
        logger.warning("daphne was imported before the event loop was chosen: no uvloop")
    use_uvloop()
    # Imports daphne's server, which creates daphne's loop: after the policy.
    from gateway.serving.daphne_access_log import MaskedAccessLogCommandLine, one_access_log

    memoise_content_type_parse()
    one_access_log()
    tune_for_serving()
    sys.stdout.reconfigure(line_buffering=True)  # the access log's stream
    MaskedAccessLogCommandLine().run(["-b", host, "-p", str(port), APPLICATION])
