"""revoke_client NAME: the client's token stops working at once."""

from django.core.management.base import BaseCommand, CommandParser

from clients.management.commands._lookup import client_named
from clients.services import client_revoke
from localrouter.change_audit import command_actor


class Command(BaseCommand):
    help = (
        "Revoke a client: its token stops working at once; its settings and reports stay. "
        "`regenerate_token NAME --activate` gives it a new token and makes it active again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args, **options) -> None:
        client = client_named(options["name"])
        client_revoke(client=client, actor=command_actor("revoke_client"))
        self.stdout.write(
            f"Revoked client {client.name!r}: token {client.masked_token} no longer works."
        )
