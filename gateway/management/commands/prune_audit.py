"""`manage.py prune_audit [--days N]`: delete audit events past the retention period."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from gateway.operations.audit.retention import audit_events_prune


class Command(BaseCommand):
    help = (
        "Delete audit events older than the retention period "
        "(LOCALROUTER_AUDIT_RETENTION_DAYS, default 90 days): the only way they are deleted."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="keep this many days instead of LOCALROUTER_AUDIT_RETENTION_DAYS",
        )

    def handle(self, *args, days: int | None, **options) -> None:
        days = settings.AUDIT_RETENTION_DAYS if days is None else days
        if days < 1:
            raise CommandError("--days must be at least 1")
        deleted = audit_events_prune(days=days)
        self.stdout.write(f"Deleted {deleted} audit event(s) older than {days} day(s).")
