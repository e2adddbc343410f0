"""Text on an upstream's stdout that is not JSON-RPC: banners skipped, garbage cut short.

Many servers print a banner ("Server running on stdio") before speaking JSON-RPC. Up to
`BANNER_LINE_LIMIT` such lines before the handshake are skipped and logged as one line once
the handshake succeeds; more make the start fail at once with a protocol error (logged once,
by whoever started it). After the handshake, the first such line of a session is logged
and the rest are ignored (the stdio transport hands such lines over without logging them).
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from gateway.upstreams.errors import UpstreamError, redact
from gateway.upstreams.spec import UpstreamSpec

logger = logging.getLogger(__name__)
BANNER_LINE_LIMIT = 50
SAMPLE_CHARS = 120


class StdoutNoise:
    """Counts one session's non-JSON-RPC stdout lines and says what to do about them."""

    def __init__(self, spec: UpstreamSpec) -> None:
        self.spec = spec
        self.lines = 0
        self.sample = ""
        self._reported_after_start = False

    def add(self, exc: Exception, *, started: bool) -> bool:
        """Note one line; True when a start should be given up (garbage, not a banner)."""
        self.lines += 1
        if not self.sample:
            self.sample = self._text_of(exc)
        if not started:
            return self.lines > BANNER_LINE_LIMIT
        if not self._reported_after_start:
            self._reported_after_start = True
            logger.warning(
                "upstream %r wrote text that is not JSON-RPC to stdout; ignored "
                "(said once per session): %r",
                self.spec.name,
                self._text_of(exc),
            )
        return False

    def report_banner(self) -> None:
        """After a successful handshake: one line for the banner skipped before it."""
        if self.lines:
            logger.info(
                "upstream %r: skipped %d line(s) of stdout before the handshake that were not "
                "JSON-RPC, first: %r",
                self.spec.name,
                self.lines,
                self.sample,
            )

    def failure(self) -> UpstreamError:
        return UpstreamError(
            self.spec.name,
            "protocol",
            f"the upstream wrote output that is not JSON-RPC to stdout "
            f"({self.lines} lines before the handshake, first: {self.sample!r})",
        )

    def _text_of(self, exc: Exception) -> str:
        text = ""
        if isinstance(exc, ValidationError) and exc.errors():
            text = str(exc.errors()[0].get("input", ""))
        return redact(text, self.spec.secret_values())[:SAMPLE_CHARS]
