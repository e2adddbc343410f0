"""Writes for upstreams: importing a client's MCP server config, all or nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from gateway.models import Upstream
from gateway.upstream_auth.models import GrantMode, UpstreamAuth
from gateway.upstream_config.config_files import (
    ConfigFileError,
    OAuthClient,
    ServerEntry,
    parse_config,
)
from gateway.upstream_config.env_file import parse_env_file
from gateway.upstream_config.env_placeholders import expand, missing_variables
from localrouter.change_audit import field_labels, record_change
from localrouter.validation import describe

FIELDS = ("transport", "command", "args", "env", "cwd", "url", "headers", "enabled")
AUDITED_FIELDS = (*FIELDS, "timeout_seconds")
"""What an import may change, compared before and after for the audit trail."""


def upstreams_import(
    *,
    text: str,
    source: str,
    update: bool,
    dry_run: bool = False,
    base_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
    actor: str = "",
) -> list[str]:
    """Create (or with `update`, replace) the upstreams a config file lists.

    Returns one line per server saying what happened and which placeholder variables
    `environ` (default: this process's environment) still lacks. Nothing is saved unless
    every server is valid, nor ever with `dry_run`. `base_dir` is the config file's folder:
    `envFile`s are read relative to it (without it they are not read). `actor` is who
    imported, for the audit trail.

    Raises:
        ConfigFileError: the file is malformed or a server in it is invalid (names the place).
    """
    environ = os.environ if environ is None else environ
    entries = parse_config(text, source=source, workspace=_workspace(base_dir))
    if not entries:
        raise ConfigFileError(f"{source}: the file lists no servers")
    report: list[str] = []
    with transaction.atomic():
        for entry in entries:
            report.append(
                _import_one(
                    entry,
                    update=update,
                    base_dir=base_dir,
                    environ=environ,
                    dry_run=dry_run,
                    actor=actor,
                )
            )
        if dry_run:
            transaction.set_rollback(True)
    return report


_VERBS = {
    False: ("created", "updated", "skipped"),
    True: ("would create", "would update", "would skip"),
}
"""What each import line says happened, or with `dry_run` what would happen."""


def _import_one(
    entry: ServerEntry,
    *,
    update: bool,
    base_dir: Path | None,
    environ: Mapping[str, str],
    dry_run: bool,
    actor: str,
) -> str:
    created, updated, skipped = _VERBS[dry_run]
    upstream = Upstream.objects.filter(name=entry.name).first()
    if upstream is not None and not update:
        return f"{skipped:<8} {entry.name} (exists, kept as it is)"
    verb = f"{updated if upstream else created:<8}"
    before = {field: getattr(upstream, field) for field in AUDITED_FIELDS} if upstream else None
    upstream = upstream or Upstream(name=entry.name)
    notes = list(entry.notes)
    if entry.env_file:
        file_env, note = _read_env_file(entry.env_file, base_dir)
        entry.env = {**file_env, **entry.env}
        notes += [note] if note else []
    for field in FIELDS:
        setattr(upstream, field, getattr(entry, field))
    if entry.timeout is not None:
        upstream.timeout_seconds = entry.timeout
    try:
        upstream.full_clean()
    except ValidationError as error:
        raise ConfigFileError(f"{entry.name}: {describe(error)} (nothing imported)") from None
    upstream.save()
    if entry.oauth is not None:
        notes += _keep_oauth_client(upstream, entry.oauth, environ)
    elif entry.transport != "stdio" and not _authorizes(entry.headers):
        notes.append(OAUTH_HINT)
    if not dry_run:
        _record_import(upstream, before, actor)
    kind = entry.transport if entry.enabled else f"{entry.transport}, disabled"
    missing = missing_variables(_settings_text(upstream), environ)
    if missing:
        notes.append(f"needs {', '.join(missing)} in the gateway's environment")
    return f"{verb} {entry.name} ({kind})" + "".join(f"; {note}" for note in notes)


OAUTH_HINT = "if it answers 401 (OAuth), choose who connects it under OAuth on its page"


def _authorizes(headers: Mapping[str, str]) -> bool:
    return any(name.lower() == "authorization" for name in headers)


def _keep_oauth_client(
    upstream: Upstream, oauth: OAuthClient, environ: Mapping[str, str]
) -> list[str]:
    """Keep a config's OAuth client as the upstream's entered credentials (placeholders
    filled in from `environ` now, the secret sealed): each member connects it, unless the
    upstream is already set up for a shared or machine grant."""
    client_id, missing = expand(oauth.client_id, environ)
    secret, missing_secret = expand(oauth.client_secret, environ)
    auth = UpstreamAuth.objects.filter(upstream=upstream).first()
    auth = auth or UpstreamAuth(upstream=upstream, mode=GrantMode.MEMBER)
    if auth.mode == GrantMode.NONE:
        auth.mode = GrantMode.MEMBER
    auth.client_id, auth.scopes = client_id, oauth.scopes
    auth.seal("client_secret", secret)
    auth.save()
    notes = [f"OAuth client {client_id!r} kept ({auth.get_mode_display()})"]
    unset = dict.fromkeys([*missing, *missing_secret])
    if unset:
        notes.append(
            f"its OAuth client needs {', '.join(unset)} set when importing "
            "(or enter it on the upstream's page)"
        )
    return notes


def _record_import(upstream: Upstream, before: dict | None, actor: str) -> None:
    """Tell the audit trail what the import added or changed (field names only)."""
    if before is None:
        record_change(actor=actor, action="added", obj=upstream)
        return
    changed = [field for field in AUDITED_FIELDS if getattr(upstream, field) != before[field]]
    if changed:
        fields = field_labels(upstream, changed)
        record_change(actor=actor, action="changed", obj=upstream, fields=fields)


def _settings_text(upstream: Upstream) -> list[str]:
    """Every setting that may hold a placeholder."""
    return [
        upstream.command,
        *upstream.args,
        *upstream.env.values(),
        upstream.cwd,
        upstream.url,
        *upstream.headers.values(),
    ]


def _read_env_file(name: str, base_dir: Path | None) -> tuple[dict[str, str], str]:
    """The variables of an `envFile`, and a note when it could not be read."""
    # Only the command reads files: a pasted config must not read files on the server.
    if base_dir is None:
        return {}, f"envFile {name} not read (import the file with the command instead)"
    path = base_dir / Path(name).expanduser()
    try:
        return parse_env_file(path.read_text(encoding="utf-8")), ""
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or type(error).__name__
        return {}, f"envFile {path} not read ({reason})"


def _workspace(base_dir: Path | None) -> str | None:
    """The project folder: the config's folder, or its parent for .vscode/ and .cursor/."""
    if base_dir is None:
        return None
    return str(base_dir.parent if base_dir.name in (".vscode", ".cursor") else base_dir)
