"""mcp_stdio --token TOKEN: the gateway over stdio, for clients that only speak stdio."""

import os

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser

from gateway.serving.process_tuning import tune_for_serving
from gateway.serving.stdio_bridge import serve_stdio


class Command(BaseCommand):
    help = (
        "Serve LocalRouter as a stdio MCP server for one client "
        "(token from --token or LOCALROUTER_TOKEN)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--token", default=os.environ.get("LOCALROUTER_TOKEN"))

    def handle(self, *args, **options) -> None:
        token = options["token"]
        if not token:
            raise CommandError("give the client's token with --token or LOCALROUTER_TOKEN")
        tune_for_serving()  # as daphne's and uvicorn's launchers do
        if not anyio.run(serve_stdio, token):
            raise CommandError("invalid or revoked token")
