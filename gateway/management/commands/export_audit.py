"""`manage.py export_audit [--since DATE] [--until DATE] [--client NAME] [--kind KIND]`."""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.dateparse import parse_date, parse_datetime

from gateway.operations.audit.export import audit_events, event_lines
from gateway.operations.audit.models import Kind


def moment(option: str, text: str) -> datetime:
    """A date (midnight UTC) or a date and time (UTC unless it says otherwise).

    Raises:
        CommandError: the text is neither.
    """
    try:
        parsed = parse_datetime(text)
        if parsed is None and (day := parse_date(text)) is not None:
            parsed = datetime.combine(day, time())
    except ValueError:
        parsed = None
    if parsed is None:
        raise CommandError(f"{option} {text!r}: expected a date (2026-12-01) or a date and time")
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = (
        "Print audit events as JSON lines, oldest first: one object per call or admin change. "
        "Never arguments unless LOCALROUTER_AUDIT_ARGUMENTS recorded them (secrets masked)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", help="events at or after this date/time (UTC)")
        parser.add_argument("--until", help="events before this date/time (UTC)")
        parser.add_argument("--client", help="one client's events (its name at the time)")
        parser.add_argument("--kind", choices=Kind.values, help="one kind of event")

    def handle(self, *args, **options) -> None:
        events = audit_events(
            since=moment("--since", options["since"]) if options["since"] else None,
            until=moment("--until", options["until"]) if options["until"] else None,
            client=options["client"],
            kind=options["kind"],
        )
        for line in event_lines(events):
            self.stdout.write(line, ending="")
