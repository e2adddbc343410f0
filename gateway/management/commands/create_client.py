"""create_client NAME [--upstreams a,b | --all-upstreams] [--set FIELD=VALUE ...]

A gateway command, not a clients one: it resolves upstream names into records.
"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from clients.context_settings import FIELD_NAMES, parse_setting
from clients.services import client_create
from gateway.models import Upstream
from localrouter.change_audit import command_actor
from localrouter.validation import describe


class Command(BaseCommand):
    help = (
        "Create a client and print its token alone on the last line. "
        f"Settings for --set: {', '.join(FIELD_NAMES)}."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        scope = parser.add_mutually_exclusive_group()
        scope.add_argument("--upstreams", help="comma-separated upstream names the client may use")
        scope.add_argument(
            "--all-upstreams",
            action="store_true",
            help="the client may use every upstream (default)",
        )
        parser.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="FIELD=VALUE",
            help="a context-management override, e.g. response_threshold=32768",
        )

    def handle(self, *args, **options) -> None:
        overrides = {}
        for item in options["overrides"]:
            field, found, raw = item.partition("=")
            if not found:
                raise CommandError(f"--set {item!r}: expected FIELD=VALUE")
            try:
                overrides[field.strip()] = parse_setting(field.strip(), raw)
            except ValidationError as error:
                raise CommandError(f"--set {item!r}: {error.messages[0]}") from None
        upstream_names = None
        try:
            upstreams = None
            if options["upstreams"] is not None:
                upstream_names = [n.strip() for n in options["upstreams"].split(",") if n.strip()]
                upstreams = Upstream.objects.by_names(upstream_names)
            client, token = client_create(
                name=options["name"],
                upstreams=upstreams,
                overrides=overrides,
                actor=command_actor("create_client"),
            )
        except ValidationError as error:
            raise CommandError(describe(error)) from None
        scope = (
            "all upstreams" if client.all_upstreams else ", ".join(upstream_names) or "no upstreams"
        )
        self.stdout.write(f"Created client {client.name!r} ({scope}). Its token, shown only now:")
        self.stdout.write(token)
