"""manage.py reencrypt_secrets: every stored OAuth secret encrypted again under the first key."""

from django.core.management.base import BaseCommand, CommandError

from gateway.upstream_auth.rotation import reencrypt_all
from localrouter.encryption import UndecryptableSecret


class Command(BaseCommand):
    help = (
        "Encrypt every stored OAuth grant and client secret again under the first key of "
        "LOCALROUTER_ENCRYPTION_KEYS; afterwards the other keys can be removed."
    )

    def handle(self, *args, **options) -> None:
        try:
            counts = reencrypt_all()
        except UndecryptableSecret as error:
            raise CommandError(f"{error}; nothing was changed") from None
        for name, count in counts.items():
            self.stdout.write(f"{name}: {count} re-encrypted")
