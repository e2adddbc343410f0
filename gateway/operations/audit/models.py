"""`AuditEvent`: one call or change, written once and never changed."""

from __future__ import annotations

from datetime import datetime

from django.db import models

NAME_MAX = 300
"""Longest tool, resource or prompt name (or changed object's name) kept; longer ones are cut."""


class AppendOnlyError(Exception):
    """Something tried to change or delete an audit event (only pruning deletes them)."""


class Kind(models.TextChoices):
    TOOL = "tool", "tool"
    INDEX = "index", "index tool"
    RESOURCE = "resource", "resource"
    PROMPT = "prompt", "prompt"
    COMPLETION = "completion", "completion"
    CHANGE = "change", "change"


class Action(models.TextChoices):
    ADDED = "added", "added"
    CHANGED = "changed", "changed"
    DELETED = "deleted", "deleted"
    TOKEN_REGENERATED = "token_regenerated", "regenerated the token of"
    REVOKED = "revoked", "revoked"
    HELD = "held", "held"
    APPROVED = "approved", "approved"


class AuditEventQuerySet(models.QuerySet):
    """Rows can be added and read; bulk updates and deletes are refused, pruning aside."""

    def update(self, **kwargs):
        raise AppendOnlyError("audit events are never changed")

    def delete(self):
        raise AppendOnlyError("audit events are deleted only by pruning (prune_audit)")

    def prune(self, before: datetime) -> int:
        """Delete the events older than `before`; the number deleted."""
        return models.QuerySet.delete(self.filter(at__lt=before))[0]


class AuditEvent(models.Model):
    """Who did what, when: a client's call (through its session) or a change to the set-up.

    Names are copied as they were at the time (no foreign keys): an event outlives the
    client, upstream or user it names, and is never rewritten when they change.
    """

    at = models.DateTimeField("time", db_index=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Calls
    client_id = models.BigIntegerField(null=True, blank=True)
    client_name = models.CharField("client", max_length=100, blank=True)
    member = models.CharField(
        max_length=150, blank=True, help_text="The team member who owns the client."
    )
    session = models.CharField(
        max_length=64, blank=True, help_text="The session record's id (its report)."
    )
    upstream = models.CharField(max_length=48, blank=True)
    name = models.CharField(
        max_length=NAME_MAX,
        blank=True,
        help_text="The tool, resource or prompt (as the client asked when unknown), or the "
        "object changed.",
    )
    outcome = models.CharField(max_length=16, blank=True)
    reason = models.CharField(max_length=64, blank=True)
    duration = models.FloatField("duration (s)", default=0.0)
    bytes_received = models.BigIntegerField(default=0)
    bytes_delivered = models.BigIntegerField(default=0)
    guardrails = models.JSONField(
        "guardrail decisions",
        default=dict,
        blank=True,
        help_text='Counts, never content: e.g. {"masked:github token": 1}.',
    )
    arguments = models.JSONField(
        null=True, blank=True, help_text="Only with LOCALROUTER_AUDIT_ARGUMENTS; secrets masked."
    )
    # Changes
    actor = models.CharField(
        max_length=200, blank=True, help_text="The admin user, or who ran which command."
    )
    action = models.CharField(max_length=32, choices=Action.choices, blank=True)
    object_type = models.CharField(max_length=64, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    fields = models.JSONField(
        default=list, blank=True, help_text="The names of the fields changed, never their values."
    )

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        # Nobody may add, change or delete one through the admin, superusers included.
        default_permissions = ("view",)
        indexes = [
            models.Index(fields=["client_name", "at"]),
            models.Index(fields=["upstream", "at"]),
        ]

    def __str__(self) -> str:
        who = self.actor if self.kind == Kind.CHANGE else self.client_name
        return f"{self.at:%Y-%m-%d %H:%M:%S} {who} {self.kind} {self.name}"

    def save(self, *args, **kwargs) -> None:
        """Save a new event.

        Raises:
            AppendOnlyError: the event was saved before.
        """
        if not self._state.adding:
            raise AppendOnlyError("audit events are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("audit events are deleted only by pruning (prune_audit)")
