"""Connected applications: each OAuth application a member approved runs as a Client
owned by that member, so allow-lists, overrides, limits and reports apply to it."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken

from clients.models import Client
from clients.services import assign_new_token
from localrouter.change_audit import record_change

NAME_LENGTH = Client._meta.get_field("name").max_length


def _client_name(user: AbstractBaseUser, application: Application) -> str:
    """'<application> (<member>)', unique among clients (a number added when taken)."""
    base = f"{application.name or application.client_id} ({user.get_username()})"
    name, number = base[:NAME_LENGTH], 2
    while Client.objects.filter(name=name).exists():
        suffix = f" #{number}"
        name, number = base[: NAME_LENGTH - len(suffix)] + suffix, number + 1
    return name


def connection_client(*, user: AbstractBaseUser, application: Application) -> Client:
    """The member's client for this application: the existing one, or a new one.

    A client created here has a bearer token nobody is shown (OAuth tokens are its way in)
    and uses every upstream until an admin narrows it.
    """
    client = Client.objects.filter(owner=user, oauth_application=application).first()
    if client is not None:
        return client
    client = Client(
        name=_client_name(user, application),
        owner=user,
        oauth_application=application,
        notes="Connected through OAuth by its owner.",
    )
    assign_new_token(client)  # never shown: the client signs in with OAuth tokens
    try:
        with transaction.atomic():
            client.save()
            record_change(actor=user.get_username(), action="added", obj=client, fields=[])
    except IntegrityError:  # the same member approved twice at once: use the other's
        return Client.objects.get(owner=user, oauth_application=application)
    return client


def connected_clients(user: AbstractBaseUser) -> QuerySet[Client]:
    """Clients connected through OAuth that `user` may see: their own, or all for a superuser."""
    clients = Client.objects.filter(oauth_application__isnull=False).select_related(
        "owner", "oauth_application"
    )
    return clients if user.is_superuser else clients.filter(owner=user)


def connection_revoke(*, client: Client, actor: str) -> int:
    """End the application's access as this client at once: its OAuth tokens and pending
    codes are deleted (the client, its settings and reports stay). How many tokens went."""
    tokens = {"user": client.owner, "application": client.oauth_application}
    with transaction.atomic():
        refresh = RefreshToken.objects.filter(**tokens).delete()[0]
        access = AccessToken.objects.filter(**tokens).delete()[0]
        Grant.objects.filter(**tokens).delete()
        record_change(actor=actor, action="revoked", obj=client, fields=["OAuth tokens"])
    return refresh + access
