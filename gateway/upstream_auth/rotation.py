"""Re-encrypt every stored secret under the first of LOCALROUTER_ENCRYPTION_KEYS, so that the
older keys can be removed afterwards (docs/oauth.md, Key rotation)."""

from __future__ import annotations

from django.db import transaction

from gateway.upstream_auth.models import AuthServerClient, Grant, PendingAuthorization, UpstreamAuth
from localrouter.encryption import reencrypt

SEALED_FIELDS = {
    UpstreamAuth: ["client_secret_sealed"],
    AuthServerClient: ["client_secret_sealed"],
    Grant: ["access_token_sealed", "refresh_token_sealed", "client_secret_sealed"],
    PendingAuthorization: ["code_verifier_sealed", "client_secret_sealed"],
}


def reencrypt_all() -> dict[str, int]:
    """Rows re-encrypted per model; all or nothing.

    Raises:
        localrouter.encryption.UndecryptableSecret: a secret no configured key opens (nothing
            is changed).
    """
    counts: dict[str, int] = {}
    with transaction.atomic():
        for model, fields in SEALED_FIELDS.items():
            rows = list(model.objects.select_for_update().only("pk", *fields))
            for row in rows:
                for field in fields:
                    setattr(row, field, reencrypt(getattr(row, field)))
            model.objects.bulk_update(rows, fields, batch_size=500)
            counts[model._meta.verbose_name_plural] = len(rows)
    return counts
