"""Writes for upstreams: importing a client's MCP server config, all or nothing."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from gateway.mcp_config import ConfigFileError, parse_config
from gateway.models import Upstream
from localrouter.validation import describe

FIELDS = ("transport", "command", "args", "env", "cwd", "url", "headers")


def upstreams_import(*, text: str, source: str, update: bool) -> list[str]:
    """Create (or with `update`, replace) the upstreams a config file lists.

    Returns one line per server saying what happened. Nothing is saved unless every
    server is valid.

    Raises:
        ConfigFileError: the file is malformed or a server in it is invalid (names the place).
    """
    entries = parse_config(text, source=source)
    if not entries:
        raise ConfigFileError(f"{source}: the file lists no servers")
    report: list[str] = []
    with transaction.atomic():
        for entry in entries:
            upstream = Upstream.objects.filter(name=entry.name).first()
            if upstream is not None and not update:
                report.append(f"skipped  {entry.name} (exists; use --update to replace it)")
                continue
            verb = "updated " if upstream else "created "
            upstream = upstream or Upstream(name=entry.name)
            for field in FIELDS:
                setattr(upstream, field, getattr(entry, field))
            try:
                upstream.full_clean()
            except ValidationError as error:
                raise ConfigFileError(
                    f"{entry.name}: {describe(error)} (nothing imported)"
                ) from None
            upstream.save()
            report.append(f"{verb} {entry.name} ({entry.transport})")
    return report
