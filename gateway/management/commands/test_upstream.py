"""test_upstream NAME: start the upstream once, read its lists, ping it, stop it."""

from asgiref.sync import async_to_sync
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from gateway.catalog.listings import upstream_probe
from gateway.models import Upstream
from gateway.upstream_config.directory import spec_for
from gateway.upstream_config.grants import bearer_for
from gateway.upstreams import UpstreamError
from gateway.upstreams.spec import UpstreamSpec
from localrouter.url_masking import mask_url
from localrouter.validation import describe


def _target(spec: UpstreamSpec) -> str:
    """What is started or reached, without arguments or secrets."""
    if spec.transport == "stdio":
        return f"the command {spec.command!r}"
    return f"{spec.transport.upper()} {mask_url(spec.url or '')}"


class Command(BaseCommand):
    help = (
        "Start one upstream (even a disabled one) with this environment, list its tools and "
        "stop it; exit status 1 with the upstream's error if it fails. Live sessions are not "
        "touched."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args, **options) -> None:
        try:
            [upstream] = Upstream.objects.by_names([options["name"]])
        except ValidationError as error:
            raise CommandError(describe(error)) from None
        spec = spec_for(upstream)
        # Starting may take up to the start limit: say so before the wait, not after it.
        self.stdout.write(
            f"{upstream.name}: starting {_target(spec)} "
            f"(waiting up to {spec.start_limit:g}s for its handshake)..."
        )
        self.stdout.flush()
        try:
            # An OAuth upstream is tried with the team's grant (shared or machine).
            listing = async_to_sync(upstream_probe)(spec, bearer_for(spec))
        except UpstreamError as error:
            raise CommandError(str(error)) from None
        if listing.error is not None:
            raise CommandError(listing.error)
        self.stdout.write(f"{upstream.name}: connected, {len(listing.tools)} tool(s)")
        if listing.failed:
            self.stderr.write(f"{upstream.name}: {listing.failure_text()}")
        for tool in listing.tools:
            summary = (tool.description or "").strip().splitlines()[:1]
            self.stdout.write(f"  {tool.name}" + (f"  {summary[0][:80]}" if summary else ""))
