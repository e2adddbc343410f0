"""Changes to the set-up, saved as audit events in the transaction that made them."""

from __future__ import annotations

from django.utils import timezone

from clients.models import Client
from gateway.models import DefinitionPin, Upstream
from gateway.operations.audit.models import NAME_MAX, AuditEvent, Kind
from localrouter.change_audit import Change


def save_change(change: Change) -> None:
    """The `localrouter.change_audit` sink: one `AuditEvent` for one change."""
    obj = change.obj
    event = AuditEvent(
        at=timezone.now(),
        kind=Kind.CHANGE,
        actor=change.actor[:200],
        action=change.action,
        object_type=str(obj._meta.verbose_name)[:64],
        object_id=str(obj.pk if obj.pk is not None else "")[:64],
        name=str(obj)[:NAME_MAX],
        fields=list(change.fields),
    )
    # A change to a client or an upstream is found by the same filters as its calls.
    if isinstance(obj, Client):
        event.client_id, event.client_name = obj.pk, obj.name[:100]
    elif isinstance(obj, Upstream):
        event.upstream = obj.name[:48]
    elif isinstance(obj, DefinitionPin):  # held or approved: found with the upstream's calls
        event.upstream = obj.upstream.name[:48]
    event.save()
