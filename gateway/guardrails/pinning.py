"""The hold: an upstream's tools (and instructions) whose definition is not the approved one.

`hold_unapproved` is the one place every listing passes through (`Listings` calls it on each
listing it reads), so a held tool is in no client's catalog and no call is routed to it.
Each definition seen is compared with its pin: the same digest passes; a first sight is
pinned (or held, with `LOCALROUTER_PIN_ON_FIRST_SIGHT=false`); a tool new to an upstream
already pinned is held (or pinned, with `LOCALROUTER_HOLD_NEW_TOOLS=false`); a changed one
is held and its new definition kept for the approval page's diff. Holding is logged in the
audit trail (names only) the first time each new definition is seen.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import IntegrityError, close_old_connections, transaction
from django.utils import timezone

from gateway.catalog.upstream_listing import UpstreamListing
from gateway.guardrails.definitions import (
    INSTRUCTIONS,
    TOOL,
    digest,
    instructions_definition,
    tool_definition,
)
from gateway.guardrails.models import DefinitionPin
from gateway.models import Upstream
from localrouter.change_audit import record_change

logger = logging.getLogger(__name__)
FIRST_SIGHT = "pinned on first sight"
GATEWAY_ACTOR = "gateway"
UNCHECKED = "could not be checked against its pinned definition"


@dataclass(frozen=True)
class Seen:
    """One item of a listing as it is pinned: kind, name, definition and its digest."""

    kind: str
    name: str
    definition: dict
    digest: str


def seen_items(listing: UpstreamListing) -> list[Seen]:
    definitions = [(TOOL, tool.name, tool_definition(tool)) for tool in listing.tools]
    if listing.instructions:
        definitions.append((INSTRUCTIONS, "", instructions_definition(listing.instructions)))
    return [Seen(kind, name, found, digest(found)) for kind, name, found in definitions]


def held_items(upstream_name: str, items: list[Seen]) -> dict[tuple[str, str], str]:
    """(kind, name) -> state of the items held (synchronous; writes the pins it learns)."""
    close_old_connections()
    try:
        return _held_items(upstream_name, items)
    except IntegrityError:  # another worker pinned the same first sight: read it again
        return _held_items(upstream_name, items)


def _held_items(upstream_name: str, items: list[Seen]) -> dict[tuple[str, str], str]:
    upstream = Upstream.objects.filter(name=upstream_name).first()
    if upstream is None:  # deleted meanwhile: it is served no more anyway
        return {}
    with transaction.atomic():
        found = DefinitionPin.objects.filter(upstream=upstream).select_for_update()
        # The definitions are read only for what changed (a catalog may be large).
        pins = {(p.kind, p.name): p for p in found.defer("approved_definition", "seen_definition")}
        pinned = any(pin.approved_digest for pin in pins.values())
        first = [item for item in items if (item.kind, item.name) not in pins]
        for pin in DefinitionPin.objects.bulk_create(
            [_first_sight(upstream, item, pinned) for item in first]
        ):
            pins[(pin.kind, pin.name)] = pin
            if pin.held:
                _held(pin)
        held = {}
        for item in items:
            pin = pins[(item.kind, item.name)]
            if pin.seen_digest != item.digest:
                _seen_anew(pin, item)
            if pin.held:
                held[(item.kind, item.name)] = pin.state
        return held


def _first_sight(upstream: Upstream, item: Seen, pinned: bool) -> DefinitionPin:
    """A new pin: approved at once (first sight, or new tools admitted) or held."""
    pin = DefinitionPin(
        upstream=upstream,
        kind=item.kind,
        name=item.name,
        seen_digest=item.digest,
        seen_definition=item.definition,
        seen_at=timezone.now(),
    )
    if (not settings.HOLD_NEW_TOOLS) if pinned else settings.PIN_ON_FIRST_SIGHT:
        pin.approved_digest, pin.approved_definition = item.digest, item.definition
        pin.approved_at, pin.approved_by = pin.seen_at, FIRST_SIGHT
    return pin


def _seen_anew(pin: DefinitionPin, item: Seen) -> None:
    pin.seen_digest, pin.seen_definition, pin.seen_at = item.digest, item.definition, timezone.now()
    pin.save(update_fields=["seen_digest", "seen_definition", "seen_at"])
    if pin.held:
        _held(pin)


def _held(pin: DefinitionPin) -> None:
    """The audit event of a definition held (its names, never its text)."""
    record_change(actor=GATEWAY_ACTOR, action="held", obj=pin, fields=["seen_definition"])


async def hold_unapproved(listing: UpstreamListing) -> UpstreamListing:
    """The listing without the tools (and instructions) whose definitions are held."""
    if listing.error is not None:
        return listing
    items = seen_items(listing)
    try:
        held = await sync_to_async(held_items, thread_sensitive=False)(listing.name, items)
    except Exception:  # boundary: fail closed, never serve an unchecked definition
        logger.exception("could not check the pinned definitions of upstream %r", listing.name)
        held = {(item.kind, item.name): UNCHECKED for item in items}
    listing.held = {name: state for (kind, name), state in held.items() if kind == TOOL}
    listing.tools = [tool for tool in listing.tools if tool.name not in listing.held]
    if (INSTRUCTIONS, "") in held:
        listing.instructions = None
        listing.held_instructions = held[(INSTRUCTIONS, "")]
    return listing
