"""regenerate_token NAME: a new token for the client, printed alone on the last line."""

from django.core.management.base import BaseCommand, CommandParser

from clients.management.commands._lookup import client_named
from clients.services import client_regenerate_token
from localrouter.change_audit import command_actor


class Command(BaseCommand):
    help = (
        "Give a client a new token (the old one stops working at once) and print it alone on "
        "the last line. With --activate a revoked client becomes active again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument(
            "--activate", action="store_true", help="also make a revoked client active again"
        )

    def handle(self, *args, **options) -> None:
        client = client_named(options["name"])
        token = client_regenerate_token(
            client=client, activate=options["activate"], actor=command_actor("regenerate_token")
        )
        state = "" if client.is_active else " (still revoked: add --activate to use it)"
        self.stdout.write(f"New token for {client.name!r}{state}, shown only now:")
        self.stdout.write(token)
