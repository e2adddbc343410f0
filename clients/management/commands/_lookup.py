"""Find a client by name for the commands, or fail naming the ones that exist."""

from django.core.management.base import CommandError

from clients.models import Client


def client_named(name: str) -> Client:
    """The client called `name`.

    Raises:
        CommandError: there is none (the message lists the known names).
    """
    client = Client.objects.filter(name=name).first()
    if client is None:
        known = ", ".join(Client.objects.values_list("name", flat=True)) or "none yet"
        raise CommandError(f"no client named {name!r} (known: {known})")
    return client
