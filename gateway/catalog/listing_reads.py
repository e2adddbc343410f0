"""Listing reads that outlive the session that asked: a slow upstream never stalls a session.

A session waits for an upstream's first listing at most `budget` seconds counted from
when that read started (so a second session does not wait for the same slow upstream
again). An upstream it did not wait for is handed over as *pending* and announced
through `on_late` once its tools arrive. A known-failing upstream is not waited for at
all: its last error is handed over at once while a retry runs in the background.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from gateway.catalog.upstream_listing import UpstreamListing
from gateway.upstreams import UpstreamSpec

logger = logging.getLogger(__name__)

ReadFn = Callable[[UpstreamSpec], Awaitable[UpstreamListing]]
LateFn = Callable[[str, UpstreamListing], Awaitable[None]]


@dataclass(eq=False)
class _Read:
    spec: UpstreamSpec
    task: asyncio.Task[UpstreamListing]
    started: float = field(default_factory=time.monotonic)
    handed_over: bool = False
    """Whether some session got a pending or stale listing instead of this read's result."""


class ListingReads:
    """At most one read per upstream in flight, shared by every session that asks."""

    def __init__(self, read: ReadFn, on_late: LateFn | None = None) -> None:
        self._read = read
        self.on_late = on_late
        self._reads: dict[str, _Read] = {}
        self._announcing: set[asyncio.Task] = set()

    def names(self) -> list[str]:
        """The upstreams being read."""
        return list(self._reads)

    async def within(
        self,
        specs: list[UpstreamSpec],
        budget: float,
        cached: Callable[[UpstreamSpec], UpstreamListing | None],
    ) -> dict[str, UpstreamListing | None]:
        """Each upstream's listing, waiting for first reads at most `budget` from their start;
        None for an upstream still being read."""
        results: dict[str, UpstreamListing | None] = {}
        waiting: list[_Read] = []
        for spec in specs:
            known = cached(spec)
            if known is not None and not known.stale:
                results[spec.name] = known
                continue
            read = self._start(spec)
            if known is not None:  # failed before: hand over its error now, retry meanwhile
                read.handed_over = True
                results[spec.name] = known
            else:
                waiting.append(read)
        if waiting:
            deadline = max(r.started for r in waiting) + budget
            timeout = max(0.0, deadline - time.monotonic())
            await asyncio.wait([r.task for r in waiting], timeout=timeout)
        for read in waiting:
            if read.task.done():
                results[read.spec.name] = read.task.result()
            else:
                read.handed_over = True
                results[read.spec.name] = None
        return results

    def _start(self, spec: UpstreamSpec) -> _Read:
        read = self._reads.get(spec.name)
        if read is not None and read.spec == spec:
            return read
        task = asyncio.get_running_loop().create_task(self._read(spec), name=f"listing:{spec.name}")
        read = _Read(spec, task)
        self._reads[spec.name] = read
        task.add_done_callback(lambda _t: self._finished(read))
        return read

    def _finished(self, read: _Read) -> None:
        if self._reads.get(read.spec.name) is read:
            del self._reads[read.spec.name]
        if read.task.cancelled() or read.task.exception() is not None:
            return
        listing = read.task.result()
        if read.handed_over and listing.error is None and self.on_late is not None:
            logger.info(
                "upstream %r joined late (%.1fs); announcing its lists",
                read.spec.name,
                time.monotonic() - read.started,
            )
            announce = asyncio.get_running_loop().create_task(
                self.on_late(read.spec.name, listing), name=f"announce:{read.spec.name}"
            )
            self._announcing.add(announce)
            announce.add_done_callback(self._announcing.discard)

    async def aclose(self) -> None:
        """Cancel the reads in flight."""
        for read in list(self._reads.values()):
            read.task.cancel()
