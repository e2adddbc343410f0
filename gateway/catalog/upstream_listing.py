"""One upstream's listing: its catalog under its own names, or why it could not be read."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from gateway.upstreams import UpstreamSpec
from indexing.api.catalog_plan import ServerCatalog

RETRY_FAILED_AFTER = 15.0


@dataclass(kw_only=True)
class UpstreamListing(ServerCatalog):
    """One upstream's catalog (its own names), or the error that kept us from starting it.

    `error` means the upstream could not be started at all; `failed` maps a list method
    (e.g. `resources/templates/list`) to why that one list could not be read, while the
    other lists are still served.
    """

    spec: UpstreamSpec
    name: str = ""  # the spec's
    error: str | None = None
    failed: dict[str, str] = field(default_factory=dict)
    pending: bool = False
    held: dict[str, str] = field(default_factory=dict)
    """Tools left out because their definition awaits approval (name -> state), by
    `gateway.guardrails.pinning`; `held_instructions` likewise for the instructions."""
    held_instructions: str | None = None
    read_at: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.name = self.name or self.spec.name

    @property
    def stale(self) -> bool:
        broken = self.error is not None or bool(self.failed)
        # Held items are looked at again too: an approval in another worker lets them in.
        broken = broken or bool(self.held) or self.held_instructions is not None
        return broken and time.monotonic() - self.read_at > RETRY_FAILED_AFTER

    def failure_text(self) -> str | None:
        """Which lists failed and why, in one line (None when every list was read)."""
        if not self.failed:
            return None
        return "; ".join(f"{method} failed: {why}" for method, why in self.failed.items())
