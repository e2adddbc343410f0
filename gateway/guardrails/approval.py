"""A superuser approves held definitions: the seen definition becomes the pinned one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from gateway.guardrails.definitions import definition_lines
from gateway.guardrails.models import DefinitionPin
from gateway.runtime import running_gateway
from localrouter.change_audit import record_change


@dataclass(frozen=True)
class DiffRow:
    """One row of the side-by-side diff: the approved line, the seen line, and how they differ
    ('equal', 'replace', 'delete' or 'insert')."""

    tag: str
    old: str
    new: str


def definition_diff(pin: DefinitionPin) -> list[DiffRow]:
    """The approved definition against the one seen now, line by line."""
    old, new = definition_lines(pin.approved_definition), definition_lines(pin.seen_definition)
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        left, right = old[a0:a1], new[b0:b1]
        for index in range(max(len(left), len(right))):
            rows.append(
                DiffRow(
                    tag,
                    left[index] if index < len(left) else "",
                    right[index] if index < len(right) else "",
                )
            )
    return rows


def pins_approve(*, pins: Iterable[DefinitionPin], actor: str) -> int:
    """Approve what is seen of these pins (the held ones); how many were approved.

    The gateway of this worker reads the upstreams again at once; other workers do within
    seconds (a held listing is read again after a while).
    """
    approved: set[str] = set()
    count = 0
    with transaction.atomic():
        for pin in pins:
            if not pin.held:
                continue
            pin.approved_digest, pin.approved_definition = pin.seen_digest, pin.seen_definition
            pin.approved_at, pin.approved_by = timezone.now(), actor[:200]
            pin.save(
                update_fields=[
                    "approved_digest",
                    "approved_definition",
                    "approved_at",
                    "approved_by",
                ]
            )
            record_change(actor=actor, action="approved", obj=pin, fields=["approved_definition"])
            approved.add(pin.upstream.name)
            count += 1
    gateway = running_gateway()
    for name in sorted(approved) if gateway is not None else ():
        gateway.definitions_approved(name)
    return count
