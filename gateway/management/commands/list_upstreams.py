"""list_upstreams: every upstream with its transport, state, target and unset variables."""

import os

from django.core.management.base import BaseCommand

from gateway.models import Upstream
from gateway.upstream_config.directory import spec_for
from localrouter.text_table import format_table
from localrouter.url_masking import mask_url


def target(upstream: Upstream) -> str:
    """What the upstream runs or reaches, without arguments' or URLs' secrets."""
    return upstream.command if upstream.transport == "stdio" else mask_url(upstream.url)


class Command(BaseCommand):
    help = (
        "List the upstreams: transport, enabled or not, command or URL, per-call timeout, "
        "and the ${VAR} placeholders this environment leaves unset."
    )

    def handle(self, *args, **options) -> None:
        rows = []
        for upstream in Upstream.objects.all():
            unset = spec_for(upstream, os.environ).unset
            rows.append(
                (
                    upstream.name,
                    upstream.transport,
                    "enabled" if upstream.enabled else "disabled",
                    target(upstream),
                    f"{upstream.timeout_seconds:g}s",
                    ", ".join(unset) or "-",
                )
            )
        if not rows:
            self.stdout.write(
                "No upstreams yet: import some with `manage.py import_mcp_servers FILE`."
            )
            return
        headers = ("name", "transport", "state", "command or URL", "timeout", "unset variables")
        self.stdout.write(format_table(headers, rows))
