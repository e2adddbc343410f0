"""Pinned definitions: what a superuser approved of each upstream tool, and what is seen now."""

from __future__ import annotations

from django.db import models

from gateway.guardrails.definitions import INSTRUCTIONS, TOOL


class PinQuerySet(models.QuerySet):
    def held(self) -> PinQuerySet:
        """Definitions seen that differ from the approved one (or were never approved)."""
        return self.exclude(seen_digest=models.F("approved_digest"))


class DefinitionPin(models.Model):
    """One tool (or the instructions) of an upstream: the approved definition and the one seen.

    Held while the two digests differ: the tool is in no listing and no call reaches it.
    """

    KINDS = [(TOOL, "tool"), (INSTRUCTIONS, "server instructions")]

    upstream = models.ForeignKey("gateway.Upstream", on_delete=models.CASCADE, related_name="pins")
    kind = models.CharField(max_length=16, choices=KINDS, default=TOOL)
    name = models.CharField(max_length=200, blank=True, help_text="The tool's name upstream.")
    approved_digest = models.CharField(max_length=64, blank=True)
    approved_definition = models.JSONField(null=True, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.CharField(max_length=200, blank=True)
    seen_digest = models.CharField(max_length=64)
    seen_definition = models.JSONField()
    seen_at = models.DateTimeField()

    objects = PinQuerySet.as_manager()

    class Meta:
        verbose_name = "pinned tool definition"
        ordering = ["upstream__name", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["upstream", "kind", "name"], name="one_pin_per_item")
        ]

    def __str__(self) -> str:
        return f"{self.upstream.name}: {self.label}"

    @property
    def label(self) -> str:
        return "server instructions" if self.kind == INSTRUCTIONS else self.name

    @property
    def held(self) -> bool:
        return self.seen_digest != self.approved_digest

    @property
    def state(self) -> str:
        if not self.held:
            return "approved"
        return "changed, awaiting approval" if self.approved_digest else "new, awaiting approval"
