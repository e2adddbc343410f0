"""The seam to Twisted (daphne's HTTP): its private names, in one place.

Twisted parses each request's Content-Type with the `email` package (`_parseContentType`,
a pure bytes -> bytes function); the header is one of a handful of values, so the parse
is memoised. Twisted is imported only inside the functions: daphne must set up its
reactor's event loop first (`gateway/serving/daphne_server.py`).
"""

from __future__ import annotations

import functools
from types import ModuleType

from gateway.seams.private_names import PrivateName, verify

SEAM = __name__
LIBRARY = "Twisted"
CONTENT_TYPES_REMEMBERED = 64


def _http() -> ModuleType:
    from twisted.web import http

    return http


def check() -> None:
    """Verify that the installed Twisted still has every private name this seam uses.

    Raises:
        SeamBroken: one is gone; the message names this module, Twisted's version and it.
    """
    verify(SEAM, LIBRARY, (PrivateName(_http(), "_parseContentType"),))


def memoise_content_type_parse() -> None:
    """Have Twisted remember its recent Content-Type parses (once, however often called).

    Raises:
        SeamBroken: Twisted no longer parses it with `http._parseContentType`.
    """
    check()
    http = _http()
    parse = http._parseContentType
    if not hasattr(parse, "cache_info"):
        http._parseContentType = functools.lru_cache(CONTENT_TYPES_REMEMBERED)(parse)
