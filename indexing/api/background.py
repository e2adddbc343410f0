"""Work left running in the background: its failure is logged, never lost."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future

AnyFuture = Future | asyncio.Future


def log_failure(logger: logging.Logger, message: str) -> Callable[[AnyFuture], None]:
    """A done-callback that logs `message` with the exception of a future that failed."""

    def done(future: AnyFuture) -> None:
        if not future.cancelled() and future.exception() is not None:
            logger.error(message, exc_info=future.exception())

    return done
