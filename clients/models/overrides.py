"""The nullable context-management override fields shared by clients and the global row."""

from django.db import models

from clients.context_settings import validate_threshold, validate_tool_name

INHERIT = "Leave empty to inherit."


class ContextOverrides(models.Model):
    """Context-management overrides; NULL means inherit from the next level."""

    indexing_enabled = models.BooleanField(
        "tool responses indexing", null=True, blank=True, help_text=INHERIT
    )
    response_threshold = models.PositiveIntegerField(
        "response threshold (bytes)",
        null=True,
        blank=True,
        validators=[validate_threshold],
        help_text="Responses larger than this are indexed. " + INHERIT,
    )
    catalog_indexing_enabled = models.BooleanField(
        "catalog indexing", null=True, blank=True, help_text=INHERIT
    )
    catalog_threshold = models.PositiveIntegerField(
        "catalog threshold (bytes)",
        null=True,
        blank=True,
        validators=[validate_threshold],
        help_text="Catalogs larger than this are deferred behind search. " + INHERIT,
    )
    # NULL (inherit) differs from any name, so these text fields are nullable on purpose.
    search_tool_name = models.CharField(  # noqa: DJ001
        max_length=64, null=True, blank=True, validators=[validate_tool_name], help_text=INHERIT
    )
    read_tool_name = models.CharField(  # noqa: DJ001
        max_length=64, null=True, blank=True, validators=[validate_tool_name], help_text=INHERIT
    )
    vector_search = models.BooleanField(
        "hybrid vector search", null=True, blank=True, help_text=INHERIT
    )

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        # Blank text in a form means "inherit", never an empty tool name.
        for name in ("search_tool_name", "read_tool_name"):
            if getattr(self, name) == "":
                setattr(self, name, None)
