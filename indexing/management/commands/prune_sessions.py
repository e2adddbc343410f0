"""`manage.py prune_sessions [--days N]`: delete session reports past the retention period."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from indexing.reports.models import IndexedLabel, SessionRecord


def session_records_prune(*, days: int) -> tuple[int, int]:
    """Delete the records (and their labels) with no activity in the last `days` days.

    Returns the numbers of sessions and labels deleted.
    """
    cutoff = timezone.now() - timedelta(days=days)
    old = SessionRecord.objects.filter(last_activity_at__lt=cutoff)
    with transaction.atomic():
        labels = IndexedLabel.objects.filter(session__in=old.values("pk")).delete()[0]
        sessions = old.delete()[0]
    return sessions, labels


class Command(BaseCommand):
    help = (
        "Delete session reports with no activity for longer than the retention period "
        "(LOCALROUTER_REPORT_RETENTION_DAYS, default 30 days)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="keep this many days instead of LOCALROUTER_REPORT_RETENTION_DAYS",
        )

    def handle(self, *args, days: int | None, **options) -> None:
        days = settings.REPORT_RETENTION_DAYS if days is None else days
        if days < 1:
            raise CommandError("--days must be at least 1")
        sessions, labels = session_records_prune(days=days)
        self.stdout.write(
            f"Deleted {sessions} session record(s) and {labels} indexed label(s) "
            f"older than {days} day(s)."
        )
