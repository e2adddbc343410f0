"""import_mcp_servers FILE [--update]: add upstreams from a Claude/Cursor/VS Code config."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from gateway.mcp_config import ConfigFileError
from gateway.services import upstreams_import


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
            report = upstreams_import(text=text, source=str(path), update=options["update"])
        except ConfigFileError as error:
            raise CommandError(str(error)) from None
        for line in report:
            self.stdout.write(line)
