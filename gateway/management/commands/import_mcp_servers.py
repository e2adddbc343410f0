"""import_mcp_servers FILE [--update]: add upstreams from a Claude/Cursor/VS Code config."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from gateway.mcp_config import ConfigFileError, parse_config
from gateway.models import Upstream
from localrouter.validation import describe

FIELDS = ("transport", "command", "args", "env", "cwd", "url", "headers")


class Command(BaseCommand):
    help = (
        "Import upstream servers from an 'mcpServers' (Claude Desktop, Claude Code, Cursor) or "
        "'servers' (VS Code) JSON file. Existing upstreams are kept unless --update is given. "
        "All or nothing: a problem anywhere imports nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--update", action="store_true", help="replace the settings of upstreams that exist"
        )

    def handle(self, *args, **options) -> None:
        path: Path = options["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{path}: cannot read ({error})") from None
        try:
            entries = parse_config(text, source=str(path))
        except ConfigFileError as error:
            raise CommandError(str(error)) from None
        if not entries:
            raise CommandError(f"{path}: the file lists no servers")

        report: list[str] = []
        with transaction.atomic():
            for entry in entries:
                upstream = Upstream.objects.filter(name=entry.name).first()
                if upstream is not None and not options["update"]:
                    report.append(f"skipped  {entry.name} (exists; use --update to replace it)")
                    continue
                verb = "updated " if upstream else "created "
                upstream = upstream or Upstream(name=entry.name)
                for field in FIELDS:
                    setattr(upstream, field, getattr(entry, field))
                try:
                    upstream.full_clean()
                except ValidationError as error:
                    raise CommandError(
                        f"{entry.name}: {describe(error)} (nothing imported)"
                    ) from None
                upstream.save()
                report.append(f"{verb} {entry.name} ({entry.transport})")
        for line in report:
            self.stdout.write(line)
