"""import_mcp_servers FILE [--update] [--dry-run]: add upstreams from a client's MCP config."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from gateway.services import upstreams_import
from gateway.upstream_config.config_files import ConfigFileError
from localrouter.change_audit import command_actor


class Command(BaseCommand):
    help = (
        "Import upstream servers from a Claude Desktop, Claude Code, Cursor, Windsurf, Cline "
        "('mcpServers') or VS Code ('servers') config file; comments and trailing commas are "
        "fine. Existing upstreams are kept unless --update is given. All or nothing: a problem "
        "anywhere imports nothing. See docs/importing.md."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--update", action="store_true", help="replace the settings of upstreams that exist"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would happen, save nothing"
        )

    def handle(self, *args, **options) -> None:
        path: Path = options["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{path}: cannot read ({error})") from None
        try:
            report = upstreams_import(
                text=text,
                source=str(path),
                update=options["update"],
                dry_run=options["dry_run"],
                base_dir=path.resolve().parent,
                actor=command_actor("import_mcp_servers"),
            )
        except ConfigFileError as error:
            raise CommandError(str(error)) from None
        for line in report:
            self.stdout.write(line)
        if options["dry_run"]:
            self.stdout.write("Preview only (--dry-run): nothing was saved.")
