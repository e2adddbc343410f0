"""The nullable context-management override fields shared by clients and the global row."""

from django.db import models

from clients.context_settings import validate_threshold, validate_tool_name
from clients.limit_settings import (
    validate_bytes_per_day,
    validate_calls_per_minute,
    validate_concurrent_calls,
    validate_tool_limits,
)
from clients.tool_policy import validate_tool_policy

INHERIT = "Leave empty to inherit."
UNLIMITED_OR_INHERIT = "0: unlimited. " + INHERIT


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
    # Limits (clients.limit_settings): NULL inherits, 0 is unlimited.
    calls_per_minute = models.PositiveIntegerField(
        "calls per minute",
        null=True,
        blank=True,
        validators=[validate_calls_per_minute],
        help_text="At most this many calls in any 60 seconds. " + UNLIMITED_OR_INHERIT,
    )
    concurrent_calls = models.PositiveIntegerField(
        "concurrent calls",
        null=True,
        blank=True,
        validators=[validate_concurrent_calls],
        help_text="At most this many calls running at once. " + UNLIMITED_OR_INHERIT,
    )
    bytes_per_day = models.PositiveBigIntegerField(
        "bytes delivered per day",
        null=True,
        blank=True,
        validators=[validate_bytes_per_day],
        help_text="Calls are refused once this many bytes of results were delivered since "
        "00:00 UTC. " + UNLIMITED_OR_INHERIT,
    )
    # NULL inherits the global rules; text of only comments ('# none') overrides with no rules.
    tool_limits = models.TextField(  # noqa: DJ001
        "per-tool limits",
        null=True,
        blank=True,
        validators=[validate_tool_limits],
        help_text="One rule per line: a tool name as clients see it, or a shell-style "
        "pattern, then limits, e.g. 'github__search_* calls_per_minute=10 concurrent_calls=2'. "
        "The tools a line matches share its budget. " + INHERIT,
    )

    # Guardrails (docs/guardrails.md).
    mask_secrets = models.BooleanField(
        "mask secrets in responses",
        null=True,
        blank=True,
        help_text="Private keys, cloud and service tokens, JWTs and passwords in URLs are "
        "replaced by [masked: <kind>] in tool responses before the client or the index sees "
        "them. " + INHERIT,
    )

    # NULL inherits; a client's rules are read before the global ones (clients.tool_policy).
    tool_policy = models.TextField(  # noqa: DJ001
        "tool policy",
        null=True,
        blank=True,
        validators=[validate_tool_policy],
        help_text="One rule per line: a tool name as clients see it or a shell-style pattern "
        "('github__*' for a whole upstream), then allow, ask or deny, e.g. "
        "'github__delete_* deny'. The first matching line decides; a client's lines come "
        "before the global ones; other tools are allowed. Denied tools are not listed; asked "
        "tools run only after the person at the client accepts. " + INHERIT,
    )

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        # Blank text in a form means "inherit", never an empty tool name or rule list.
        for name in ("search_tool_name", "read_tool_name", "tool_limits", "tool_policy"):
            if getattr(self, name) == "":
                setattr(self, name, None)
