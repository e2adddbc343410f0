"""Upstream MCP servers that the gateway connects to."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from gateway.operations.audit.models import AuditEvent  # noqa: F401  (the app's models are found here)
from gateway.upstream_auth.models import (  # noqa: F401
    AuthServerClient,
    Grant,
    PendingAuthorization,
    UpstreamAuth,
)
from gateway.upstream_config.env_placeholders import expand
from localrouter.tool_names import TOOL_NAME_SEPARATOR

UPSTREAM_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"


class Transport(models.TextChoices):
    STDIO = "stdio", "stdio (local process)"
    HTTP = "http", "Streamable HTTP"
    SSE = "sse", "HTTP+SSE (legacy)"


class UpstreamQuerySet(models.QuerySet):
    def by_names(self, names: Iterable[str]) -> list[Upstream]:
        """The upstreams with these names.

        Raises:
            ValidationError: some names are unknown (all of them are listed).
        """
        wanted = list(dict.fromkeys(names))
        found = {upstream.name: upstream for upstream in self.filter(name__in=wanted)}
        missing = [name for name in wanted if name not in found]
        if missing:
            known = ", ".join(self.values_list("name", flat=True)) or "none yet"
            raise ValidationError(
                f"unknown upstream(s): {', '.join(missing)} (known: {known})",
                code="unknown_upstream",
            )
        return [found[name] for name in wanted]


class Upstream(models.Model):
    """One upstream MCP server: a local stdio process or an HTTP endpoint."""

    name = models.CharField(
        max_length=48,
        unique=True,
        validators=[
            RegexValidator(
                UPSTREAM_NAME_PATTERN,
                "Use lowercase letters, digits, '-' and '_', starting with a letter or digit.",
            )
        ],
        help_text="Used as the tool prefix: '<name>__<tool>'.",
    )
    transport = models.CharField(max_length=8, choices=Transport.choices, default=Transport.STDIO)
    command = models.CharField(max_length=500, blank=True)
    args = models.JSONField(default=list, blank=True)
    env = models.JSONField(default=dict, blank=True)
    cwd = models.CharField("working directory", max_length=500, blank=True)
    url = models.CharField("URL", max_length=2000, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True)
    timeout_seconds = models.FloatField(
        "per-call timeout (seconds)", default=60.0, help_text="How long one call may take."
    )
    notes = models.TextField(blank=True)
    last_listing = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What the upstream offered when last listed: counts per kind, failed lists.",
    )
    last_listing_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = UpstreamQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        errors: dict[str, str] = {}
        if TOOL_NAME_SEPARATOR in self.name:
            errors["name"] = (
                f"must not contain {TOOL_NAME_SEPARATOR!r} (it separates upstream and tool names)"
            )
        if self.transport == Transport.STDIO:
            if not self.command.strip():
                errors["command"] = "a stdio upstream needs a command to run"
        else:
            # A URL from a placeholder without a default is checked once it is filled in.
            url = expand(self.url, {})[0]
            parts = urlsplit(url)
            if not url.startswith("${") and (
                parts.scheme not in ("http", "https") or not parts.netloc
            ):
                errors["url"] = "an HTTP upstream needs an http:// or https:// URL"
        if not isinstance(self.args, list) or not all(isinstance(a, str) for a in self.args):
            errors["args"] = "must be a list of strings"
        for field in ("env", "headers"):
            value = getattr(self, field)
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                errors[field] = "must map names to string values"
        if not 0 < self.timeout_seconds <= 3600:
            errors["timeout_seconds"] = "must be between 0 and 3600 seconds"
        if errors:
            raise ValidationError(errors)
