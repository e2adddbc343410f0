"""What the gateway keeps to reach OAuth-protected upstreams: how each upstream is authorized,
its clients at authorization servers, the grants, and authorizations under way.

Secrets are stored sealed (`localrouter.encryption`), in fields ending in `_sealed`; they are
read through `opened()` and never shown in the admin.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from localrouter.encryption import decrypt, encrypt


class GrantMode(models.TextChoices):
    NONE = "none", "no OAuth"
    MEMBER = "member", "each member connects"
    SHARED = "shared", "shared: a superuser connects once for the team"
    MACHINE = "machine", "machine: client credentials"


class Sealed:
    """Read and write the `<name>_sealed` field of a model as plain text."""

    def opened(self, name: str) -> str:
        """The plain text of `<name>_sealed`.

        Raises:
            localrouter.encryption.UndecryptableSecret: no configured key opens it.
        """
        return decrypt(getattr(self, f"{name}_sealed"))

    def seal(self, name: str, plain: str) -> None:
        setattr(self, f"{name}_sealed", encrypt(plain))


class UpstreamAuth(Sealed, models.Model):
    """How an HTTP upstream is authorized, and the client credentials a superuser entered."""

    upstream = models.OneToOneField(
        "gateway.Upstream", on_delete=models.CASCADE, related_name="auth"
    )
    mode = models.CharField(max_length=8, choices=GrantMode.choices, default=GrantMode.NONE)
    client_id = models.CharField(
        max_length=500, blank=True, help_text="Entered credentials win over any registration."
    )
    client_secret_sealed = models.TextField(blank=True, editable=False)
    scopes = models.CharField(max_length=1000, blank=True, help_text="Space-separated.")

    def __str__(self) -> str:
        return f"{self.upstream}: {self.get_mode_display()}"


class RegistrationMethod(models.TextChoices):
    METADATA_DOCUMENT = "metadata_document", "Client ID Metadata Document"
    DYNAMIC = "dynamic", "dynamic client registration (RFC 7591)"


class AuthServerClient(Sealed, models.Model):
    """The gateway's client at one authorization server, for one redirect address."""

    issuer = models.CharField(max_length=2000)
    redirect_uri = models.CharField(max_length=2000)
    method = models.CharField(max_length=20, choices=RegistrationMethod.choices)
    client_id = models.CharField(max_length=2000)
    client_secret_sealed = models.TextField(blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "redirect_uri"], name="one_client_per_issuer_redirect"
            )
        ]

    def __str__(self) -> str:
        return f"{self.client_id} at {self.issuer}"


class Grant(Sealed, models.Model):
    """One grant to one upstream: a member's (`member` set), or the team's (shared, machine)."""

    upstream = models.ForeignKey(
        "gateway.Upstream", on_delete=models.CASCADE, related_name="grants"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="upstream_grants",
    )
    mode = models.CharField(max_length=8, choices=GrantMode.choices)
    access_token_sealed = models.TextField(editable=False)
    refresh_token_sealed = models.TextField(blank=True, editable=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(max_length=1000, blank=True)
    issuer = models.CharField(max_length=2000)
    resource = models.CharField(max_length=2000)
    token_endpoint = models.CharField(max_length=2000)
    revocation_endpoint = models.CharField(max_length=2000, blank=True)
    client_id = models.CharField(max_length=2000)
    client_secret_sealed = models.TextField(blank=True, editable=False)
    needs_reauthorization = models.BooleanField(default=False)
    problem = models.CharField(max_length=500, blank=True)
    connected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    tokens_issued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "connection"
        constraints = [
            models.UniqueConstraint(fields=["upstream", "member"], name="one_grant_per_member"),
            models.UniqueConstraint(
                fields=["upstream"],
                condition=models.Q(member__isnull=True),
                name="one_team_grant_per_upstream",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.upstream} for {self.member or 'the team'}"


class PendingAuthorization(Sealed, models.Model):
    """An authorization sent to the browser, waiting for its callback: single use, short-lived,
    bound to the user who started it. Only a hash of its `state` is kept."""

    state_hash = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    upstream = models.ForeignKey("gateway.Upstream", on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=8, choices=GrantMode.choices)
    code_verifier_sealed = models.TextField()
    issuer = models.CharField(max_length=2000)
    iss_required = models.BooleanField(default=False)
    resource = models.CharField(max_length=2000)
    redirect_uri = models.CharField(max_length=2000)
    token_endpoint = models.CharField(max_length=2000)
    revocation_endpoint = models.CharField(max_length=2000, blank=True)
    client_id = models.CharField(max_length=2000)
    client_secret_sealed = models.TextField(blank=True)
    scope = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"authorization of {self.upstream} by {self.user} at {self.created_at}"
