"""Changes to the set-up (upstreams, clients, tokens, settings), reported to the audit trail.

Every path that changes something reports it here: the admin's add, change and delete
(`AuditedAdminMixin` on each `ModelAdmin`), its actions and custom views, and the services
the management commands use (`record_change`). The audit trail lives in the gateway app,
above every other layer, and registers itself with `on_change` when Django starts; a
change is saved in the transaction that made it, so neither exists without the other.
Only field names are reported, never values.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model
from django.http import HttpRequest
from django.utils.text import capfirst


@dataclass(frozen=True)
class Change:
    """Who did what to which object, and which fields it touched (names only)."""

    actor: str
    action: str
    """added, changed, deleted, token_regenerated or revoked (`AuditEvent.Action`)."""
    obj: Model
    fields: tuple[str, ...] = ()


ChangeSink = Callable[[Change], None]
_sinks: list[ChangeSink] = []


def on_change(sink: ChangeSink) -> None:
    """Have `sink` told of every change from now on (once, however often it is registered)."""
    if sink not in _sinks:
        _sinks.append(sink)


def record_change(*, actor: str, action: str, obj: Model, fields: Iterable[str] = ()) -> None:
    """Report one change to whoever keeps the audit trail (a sink's failure is raised)."""
    change = Change(actor, action, obj, tuple(dict.fromkeys(str(name) for name in fields)))
    for sink in _sinks:
        sink(change)


def field_labels(obj: Model, names: Iterable[str]) -> list[str]:
    """The labels the admin shows for these model fields ("is_active" -> "Active")."""
    labels = []
    for name in names:
        try:
            labels.append(capfirst(str(obj._meta.get_field(name).verbose_name)))
        except FieldDoesNotExist:
            labels.append(capfirst(name.replace("_", " ")))
    return labels


def command_actor(command: str) -> str:
    """Who made a change from the command line: the system user and the command."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment or the password database
        user = "unknown user"
    return f"{user} (manage.py {command})"


def admin_actor(request: HttpRequest) -> str:
    """Who made a change in the admin: the user's name."""
    return request.user.get_username()


def changed_field_names(message: Any) -> list[str]:
    """The field labels in an admin change message (`construct_change_message`'s list)."""
    if not isinstance(message, list):
        return []
    names: list[str] = []
    for entry in message:
        for verb, detail in entry.items() if isinstance(entry, dict) else ():
            if not isinstance(detail, dict):
                continue
            fields = [str(name) for name in detail.get("fields", [])]
            if "name" in detail:  # an inline's object: its kind, never its text
                kind = str(detail["name"])
                names += [f"{kind}: {name}" for name in fields] or [f"{kind} ({verb})"]
            else:
                names += fields
    return names


class AuditedAdminMixin:
    """For ModelAdmins: each add, change and delete (bulk deletes too) goes to the audit trail,
    beside the admin's own history (LogEntry)."""

    def log_addition(self, request: HttpRequest, obj: Model, message: Any):
        entry = super().log_addition(request, obj, message)
        record_change(actor=admin_actor(request), action="added", obj=obj)
        return entry

    def log_change(self, request: HttpRequest, obj: Model, message: Any):
        entry = super().log_change(request, obj, message)
        fields = changed_field_names(message)
        record_change(actor=admin_actor(request), action="changed", obj=obj, fields=fields)
        return entry

    def log_deletions(self, request: HttpRequest, queryset: Iterable[Model]):
        entries = super().log_deletions(request, queryset)
        for obj in queryset:  # called before the deletion: the objects are still there
            record_change(actor=admin_actor(request), action="deleted", obj=obj)
        return entries
