"""Records of MCP sessions, for the reports (indexed content itself is never stored)."""

from django.db import models


class SessionRecord(models.Model):
    """One MCP session (or, for 2026-07-28 clients, one client's run of requests)."""

    key = models.CharField(max_length=64, unique=True)
    client = models.ForeignKey(
        "clients.Client", null=True, on_delete=models.SET_NULL, related_name="sessions"
    )
    client_label = models.CharField("client", max_length=100)
    protocol_version = models.CharField(max_length=20)
    client_software = models.CharField("client name", max_length=200, blank=True)
    client_software_version = models.CharField("client version", max_length=100, blank=True)
    started_at = models.DateTimeField(db_index=True)
    last_activity_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    call_count = models.PositiveIntegerField(default=0)
    error_count = models.PositiveIntegerField(default=0)
    bytes_from_upstreams = models.BigIntegerField(default=0)
    bytes_to_client = models.BigIntegerField(default=0)
    calls_by_tool = models.JSONField(default=dict, blank=True)
    catalog_bytes_before = models.PositiveIntegerField(default=0)
    catalog_bytes_after = models.PositiveIntegerField(default=0)
    catalog_phases = models.JSONField(default=list, blank=True)
    items_activated = models.PositiveIntegerField(default=0)
    searches = models.PositiveIntegerField(default=0)
    reads = models.PositiveIntegerField(default=0)
    # Guardrail decisions counted, never their content: "<decision>" or "<decision>:<detail>"
    # -> count, e.g. {"masked:github token": 2, "denied": 1} (docs/guardrails.md).
    guardrails = models.JSONField("guardrail decisions", default=dict, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [
            models.Index(fields=["client", "-started_at"]),
            # prune_sessions deletes by last activity.
            models.Index(fields=["last_activity_at"], name="sessionrecord_last_activity"),
        ]

    def __str__(self) -> str:
        return f"{self.client_label} {self.started_at:%Y-%m-%d %H:%M}"


class IndexedLabel(models.Model):
    """One response indexed in a session: its statistics, never its content."""

    session = models.ForeignKey(SessionRecord, on_delete=models.CASCADE, related_name="labels")
    label = models.CharField(max_length=300)
    tool = models.CharField(max_length=200)
    run = models.PositiveIntegerField()
    original_bytes = models.BigIntegerField()
    delivered_bytes = models.BigIntegerField()
    lines = models.PositiveIntegerField()
    chunks = models.PositiveIntegerField()
    seconds_to_index = models.FloatField()

    class Meta:
        ordering = ["session", "id"]
        indexes = [
            # The overview lists the biggest responses; the label list searches by tool.
            models.Index(fields=["-original_bytes"], name="indexedlabel_biggest"),
            models.Index(fields=["tool"], name="indexedlabel_tool"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["session", "label"], name="unique_label_per_session")
        ]

    def __str__(self) -> str:
        return self.label
