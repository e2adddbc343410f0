"""Writes and reads for clients: creation, token lifecycle, authentication."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Model

from clients.models import Client
from clients.tokens import generate_token, hash_token, hashes_match, shown_prefix
from localrouter.change_audit import field_labels, record_change

MAX_TOKEN_LENGTH = 512


def assign_new_token(client: Client) -> str:
    """Give an unsaved or saved client a fresh token (not saved here) and return it."""
    token = generate_token()
    client.token_hash = hash_token(token)
    client.token_prefix = shown_prefix(token)
    return token


def client_create(
    *,
    name: str,
    upstreams: Iterable[Model] | None = None,
    overrides: Mapping[str, Any] | None = None,
    notes: str = "",
    actor: str = "",
) -> tuple[Client, str]:
    """Create a client and return it with its token (the only time the token is known).

    `upstreams` are the upstream records the client may use (resolved by the caller, e.g.
    `Upstream.objects.by_names`); None lets it use every upstream. `actor` is who asked,
    for the audit trail.

    Raises:
        django.core.exceptions.ValidationError: invalid name or override.
    """
    client = Client(name=name, notes=notes, all_upstreams=upstreams is None)
    for field, value in (overrides or {}).items():
        setattr(client, field, value)
    token = assign_new_token(client)
    client.full_clean()
    with transaction.atomic():
        client.save()
        if upstreams is not None:
            client.upstreams.set(upstreams)
        chosen = [*(overrides or {}), *(["upstreams"] if upstreams is not None else [])]
        record_change(actor=actor, action="added", obj=client, fields=field_labels(client, chosen))
    return client, token


def client_regenerate_token(*, client: Client, activate: bool = False, actor: str = "") -> str:
    """Give the client a new token; the old one stops working at once.

    With `activate`, a revoked client becomes active again. `actor` is who asked.
    """
    token = assign_new_token(client)
    activated = activate and not client.is_active
    client.is_active = client.is_active or activate
    with transaction.atomic():
        client.save(update_fields=["token_hash", "token_prefix", "is_active"])
        fields = ["Token", *field_labels(client, ["is_active"] if activated else [])]
        record_change(actor=actor, action="token_regenerated", obj=client, fields=fields)
    return token


def client_revoke(*, client: Client, actor: str = "") -> None:
    """Deactivate the client: its token stops working at once (the record and reports stay).

    `actor` is who asked, for the audit trail.
    """
    client.is_active = False
    with transaction.atomic():
        client.save(update_fields=["is_active"])
        record_change(
            actor=actor, action="revoked", obj=client, fields=field_labels(client, ["is_active"])
        )


def client_for_token(token: str) -> Client | None:
    """The active client a bearer token belongs to, or None (never says why)."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    client = Client.objects.filter(token_hash=hash_token(token), is_active=True).first()
    if client is None or not hashes_match(client.token_hash, token):
        return None
    return client
