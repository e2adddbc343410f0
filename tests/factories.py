"""factory-boy factories for the project's models."""

import factory

from clients.models import Client
from clients.tokens import generate_token, hash_token, shown_prefix
from gateway.models import Upstream


class UpstreamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Upstream

    name = factory.Sequence(lambda n: f"upstream{n}")
    transport = "stdio"
    command = "python"
    args = factory.LazyFunction(lambda: ["-c", "pass"])


class ClientFactory(factory.django.DjangoModelFactory):
    """A client; the plain token is available as `client.plain_token` after creation."""

    class Meta:
        model = Client

    name = factory.Sequence(lambda n: f"client{n}")
    token_hash = ""
    token_prefix = ""

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        token = generate_token()
        kwargs["token_hash"] = hash_token(token)
        kwargs["token_prefix"] = shown_prefix(token)
        client = super()._create(model_class, *args, **kwargs)
        client.plain_token = token
        return client


def client_admin_form(**changes: str) -> dict[str, str]:
    """The POST data of the admin's client form: every override left to inherit."""
    form = {
        "name": "client",
        "is_active": "on",
        "notes": "",
        "all_upstreams": "on",
        "tool_policy": "",
        "indexing_enabled": "unknown",
        "catalog_indexing_enabled": "unknown",
        "vector_search": "unknown",
        "response_threshold": "",
        "catalog_threshold": "",
        "search_tool_name": "",
        "read_tool_name": "",
    }
    return {**form, **changes}
