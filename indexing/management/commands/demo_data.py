"""`manage.py demo_data`: fill the reports with realistic sessions, for trying the admin pages.

Demo records have keys starting with `demo-` and belong to demo clients only: named
`demo-…`, marked in their notes and inactive (their tokens never work and are never
printed). A real client is never written to. `--clear` removes the demo sessions and the
demo clients first.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from clients.models import Client
from clients.services import client_create
from indexing.reports.models import IndexedLabel, SessionRecord
from localrouter.change_audit import command_actor, record_change
from localrouter.tool_names import TOOL_NAME_SEPARATOR

DEMO_PREFIX = "demo-"
SOFTWARE = [
    ("claude-code", "2.1.4", "2025-11-25"),
    ("cursor-vscode", "1.7.2", "2025-06-18"),
    ("Visual Studio Code", "1.106.0", "2025-11-25"),
    ("mcp-inspector", "0.17.0", "2025-06-18"),
    ("mcp", "2.3.0", "2026-07-28"),
]
CLIENTS = ["demo-alice", "demo-bob", "demo-carol", "demo-ci-bot"]
DEMO_NOTES = "Demo data from `manage.py demo_data` (inactive; `demo_data --clear` removes it)."


@dataclass(frozen=True)
class DemoTool:
    """A tool as the gateway names it, how often it is called, and how large its answers are."""

    name: str
    weight: int
    median_bytes: int


TOOLS = [
    DemoTool("github__search_issues", 9, 24_000),
    DemoTool("github__get_file_contents", 7, 60_000),
    DemoTool("github__list_pull_requests", 4, 30_000),
    DemoTool("files__read_text_file", 10, 80_000),
    DemoTool("files__list_directory", 6, 3_000),
    DemoTool("jira__search", 5, 45_000),
    DemoTool("postgres__query", 4, 120_000),
    DemoTool("time__get_current_time", 3, 200),
    DemoTool("IndexSearch", 6, 2_500),
    DemoTool("IndexRead", 5, 9_000),
]
THRESHOLD = 16_384
PHASES = ["schemas", "descriptions", "defer"]


def _session(rng: random.Random, client: Client, started: datetime) -> tuple[dict, list[dict]]:
    """One session's record fields and its indexed labels."""
    software, version, protocol = rng.choice(SOFTWARE)
    calls: dict[str, int] = {}
    runs: dict[str, int] = {}
    labels: list[dict] = []
    received = delivered = errors = 0
    for _ in range(max(1, int(rng.lognormvariate(1.9, 0.7)))):
        tool = rng.choices(TOOLS, weights=[t.weight for t in TOOLS])[0]
        calls[tool.name] = calls.get(tool.name, 0) + 1
        size = max(80, int(rng.lognormvariate(0, 0.9) * tool.median_bytes))
        if rng.random() < 0.03:
            errors += 1
            size = 300
        sent = size
        if size > THRESHOLD and TOOL_NAME_SEPARATOR in tool.name:
            runs[tool.name] = runs.get(tool.name, 0) + 1
            sent = rng.randint(1_800, 5_500)
            lines = max(1, size // rng.randint(30, 70))
            labels.append(
                {
                    "label": f"{tool.name}:{runs[tool.name]}",
                    "tool": tool.name,
                    "run": runs[tool.name],
                    "original_bytes": size,
                    "delivered_bytes": sent,
                    "lines": lines,
                    "chunks": max(1, lines // rng.randint(20, 60)),
                    "seconds_to_index": round(size / 4_000_000 + rng.random() * 0.02, 4),
                }
            )
        received += size
        delivered += sent
    catalog_before = rng.randint(9_000, 90_000)
    phases = PHASES[: rng.choice([0, 1, 2, 3])] if catalog_before > THRESHOLD else []
    after = catalog_before if not phases else int(catalog_before * rng.uniform(0.08, 0.6))
    last = started + timedelta(minutes=rng.lognormvariate(2.5, 1.0))
    fields = {
        "key": DEMO_PREFIX + uuid.uuid4().hex,
        "client": client,
        "client_label": client.name,
        "protocol_version": protocol,
        "client_software": software,
        "client_software_version": version,
        "started_at": started,
        "last_activity_at": last,
        "ended_at": last,
        "call_count": sum(calls.values()),
        "error_count": errors,
        "bytes_from_upstreams": received,
        "bytes_to_client": delivered,
        "calls_by_tool": calls,
        "catalog_bytes_before": catalog_before,
        "catalog_bytes_after": after,
        "catalog_phases": phases,
        "items_activated": rng.randint(0, 6) if "defer" in phases else 0,
        "searches": calls.get("IndexSearch", 0),
        "reads": calls.get("IndexRead", 0),
    }
    return fields, labels


def demo_client(name: str) -> Client:
    """The inactive demo client `name`, created when missing.

    Raises:
        CommandError: a client of that name exists and is not a demo client.
    """
    client = Client.objects.filter(name=name).first()
    if client is None:
        client = client_create(name=name, notes=DEMO_NOTES, actor=command_actor("demo_data"))[0]
        client.is_active = False
        client.save(update_fields=["is_active"])
    elif client.notes != DEMO_NOTES or client.is_active:
        raise CommandError(f"client {name!r} exists and is not a demo client; not touching it")
    return client


def demo_data_clear() -> tuple[int, int]:
    """Delete the demo sessions and the demo clients; (sessions, clients) removed."""
    _, deleted = SessionRecord.objects.filter(key__startswith=DEMO_PREFIX).delete()
    demo = Client.objects.filter(name__in=CLIENTS, notes=DEMO_NOTES, is_active=False)
    with transaction.atomic():
        for client in demo:
            record_change(actor=command_actor("demo_data"), action="deleted", obj=client)
        clients, _ = demo.delete()
    return deleted.get(SessionRecord._meta.label, 0), clients


def demo_sessions_create(*, sessions: int, days: int, seed: int) -> tuple[int, int]:
    """Create demo clients (if missing) and `sessions` sessions over the last `days` days."""
    rng = random.Random(seed)
    clients = [demo_client(name) for name in CLIENTS]
    now = timezone.now()
    records, label_rows = [], []
    for _ in range(sessions):
        started = now - timedelta(seconds=rng.uniform(0, days * 86_400))
        fields, labels = _session(rng, rng.choice(clients), started)
        records.append(SessionRecord(**fields))
        label_rows.append(labels)
    with transaction.atomic():
        SessionRecord.objects.bulk_create(records, batch_size=500)
        if records and records[0].pk is None:  # backends that return no ids on bulk insert
            by_key = dict(
                SessionRecord.objects.filter(key__startswith=DEMO_PREFIX).values_list("key", "pk")
            )
            for record in records:
                record.pk = by_key[record.key]
        labels = [
            IndexedLabel(session_id=record.pk, **row)
            for record, rows in zip(records, label_rows, strict=True)
            for row in rows
        ]
        IndexedLabel.objects.bulk_create(labels, batch_size=1000)
    return len(records), len(labels)


class Command(BaseCommand):
    help = (
        "Fill the session reports with realistic demo sessions (keys start with 'demo-') of "
        "inactive demo clients named 'demo-…'; --clear removes both first."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--sessions", type=int, default=400, help="how many (default 400; 0 with --clear)"
        )
        parser.add_argument("--days", type=int, default=30, help="spread over (default 30)")
        parser.add_argument("--seed", type=int, default=6, help="random seed (default 6)")
        parser.add_argument(
            "--clear", action="store_true", help="delete earlier demo sessions and demo clients"
        )

    def handle(self, *args, sessions: int, days: int, seed: int, clear: bool, **options) -> None:
        if not (0 if clear else 1) <= sessions <= 100_000:
            raise CommandError("--sessions must be between 1 and 100000 (0 only with --clear)")
        if not 1 <= days <= 3650:
            raise CommandError("--days must be between 1 and 3650")
        if clear:
            removed, clients = demo_data_clear()
            self.stdout.write(f"Removed {removed} demo session(s) and {clients} demo client(s).")
        if sessions == 0:
            return
        created, labels = demo_sessions_create(sessions=sessions, days=days, seed=seed)
        self.stdout.write(f"Created {created} demo session(s) with {labels} indexed label(s).")
