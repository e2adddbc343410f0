"""list_clients: every client with its token prefix, state, upstreams and last use."""

from django.core.management.base import BaseCommand

from clients.models import Client
from localrouter.text_table import format_table


class Command(BaseCommand):
    help = "List the clients: token prefix, active or revoked, allowed upstreams, last seen."

    def handle(self, *args, **options) -> None:
        clients = Client.objects.prefetch_related("upstreams")
        rows = [
            (
                client.name,
                client.masked_token,
                "active" if client.is_active else "revoked",
                "all"
                if client.all_upstreams
                else ",".join(u.name for u in client.upstreams.all()) or "none",
                client.last_seen_at.strftime("%Y-%m-%d %H:%M") if client.last_seen_at else "never",
            )
            for client in clients
        ]
        if not rows:
            self.stdout.write("No clients yet: create one with `manage.py create_client NAME`.")
            return
        self.stdout.write(
            format_table(("name", "token", "state", "upstreams", "last seen (UTC)"), rows)
        )
