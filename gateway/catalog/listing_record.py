"""What an upstream offered when last listed (by a session or a Test connection), on its row.

The admin's upstream page shows it: how many tools, prompts, resources and templates, and
which list failed (or why the upstream could not be started).
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone

from gateway.catalog.upstream_listing import UpstreamListing
from gateway.models import Upstream
from gateway.operations.metrics import families as metrics

logger = logging.getLogger(__name__)


def listing_summary(listing: UpstreamListing, via: str) -> dict[str, Any]:
    """The counts and failures of `listing`, as stored in `Upstream.last_listing`."""
    return {
        "via": via,
        "tools": len(listing.tools),
        "prompts": len(listing.prompts),
        "resources": len(listing.resources),
        "templates": len(listing.templates),
        "failed": dict(listing.failed),
        "error": listing.error,
    }


def record_listing_sync(listing: UpstreamListing, via: str) -> None:
    """Store the summary on the upstream's row (a row renamed or deleted meanwhile: nothing)."""
    Upstream.objects.filter(name=listing.spec.name).update(
        last_listing=listing_summary(listing, via), last_listing_at=timezone.now()
    )


async def record_listing(listing: UpstreamListing) -> None:
    """A session's listing, stored; a database failure is logged, never raised."""
    metrics.show_upstream_state(listing.spec.name, "failing" if listing.error else "connected")
    try:
        await Upstream.objects.filter(name=listing.spec.name).aupdate(
            last_listing=listing_summary(listing, "session"), last_listing_at=timezone.now()
        )
    except Exception:  # boundary: bookkeeping must not break serving the catalog
        logger.exception("could not store the listing of upstream %r", listing.spec.name)
