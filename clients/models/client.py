"""A client: a person or tool that connects to /mcp with its own bearer token."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from clients.context_settings import check_distinct_tool_names, resolve_settings
from clients.models.global_settings import GlobalSettings
from clients.models.overrides import ContextOverrides


class Client(ContextOverrides):
    """An MCP client with a token (stored only as a hash), its upstreams and overrides."""

    name = models.CharField(max_length=100, unique=True)
    token_prefix = models.CharField(max_length=16, editable=False)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    is_active = models.BooleanField("active", default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True, editable=False)
    notes = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="mcp_clients",
        help_text="The team member this client belongs to: it uses their upstream "
        "connections. Empty: a team client, using only shared connections.",
    )
    oauth_application = models.ForeignKey(
        "oauth2_provider.Application",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="mcp_clients",
        verbose_name="signs in as OAuth application",
        help_text="The OAuth application a member connected as this client (docs/auth.md).",
    )
    all_upstreams = models.BooleanField(
        "may use all upstreams",
        default=True,
        help_text="When off, the client may use only the upstreams chosen below.",
    )
    upstreams = models.ManyToManyField("gateway.Upstream", blank=True, related_name="clients")

    class Meta:
        ordering = ["name"]
        constraints = [
            # One client per member and connected application, reused on every approval.
            models.UniqueConstraint(
                fields=["owner", "oauth_application"],
                condition=models.Q(oauth_application__isnull=False),
                name="one_client_per_member_and_application",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def masked_token(self) -> str:
        """The token prefix as shown in lists, e.g. 'lr_ab12…'."""
        return f"{self.token_prefix}…" if self.token_prefix else ""

    def clean(self) -> None:
        super().clean()
        check_distinct_tool_names(resolve_settings(self, GlobalSettings.load()))
