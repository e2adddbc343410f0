"""The singleton row of team-wide context-management overrides.

Clients inherit from it (`clients.models.client` imports this module); it checks the
clients' overrides through Django's app registry, so the two modules do not import each
other.
"""

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models

from clients.context_settings import check_distinct_tool_names, resolve_settings
from clients.models.overrides import ContextOverrides

SINGLETON_ID = 1


class GlobalSettings(ContextOverrides):
    """Team-wide overrides: what every client inherits unless it sets its own."""

    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "global settings"
        verbose_name_plural = "global settings"

    def __str__(self) -> str:
        return "Global settings"

    @classmethod
    def load(cls) -> "GlobalSettings":
        """The singleton row, created empty (all inherit) on first use."""
        row, _ = cls.objects.get_or_create(pk=SINGLETON_ID)
        return row

    def save(self, *args, **kwargs) -> None:
        self.pk = SINGLETON_ID
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        check_distinct_tool_names(resolve_settings(None, self))
        # A new global name must not collide with a name some client overrides.
        clients = apps.get_model("clients", "Client")
        for client in clients.objects.exclude(search_tool_name=None, read_tool_name=None):
            try:
                check_distinct_tool_names(resolve_settings(client, self))
            except ValidationError:
                raise ValidationError(
                    f"this would give client {client.name!r} the same name for its search "
                    "and read tools; change that client's override first",
                    code="tool_name_collision",
                ) from None
