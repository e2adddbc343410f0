"""Where an HTTP request goes: /mcp to the MCP consumer, the rest to Django."""

from typing import Any

from django.urls import path, re_path

from gateway.consumers import McpConsumer


def http_routes(django_application: Any) -> list[Any]:
    """URL patterns for Channels' URLRouter."""
    return [
        path("mcp", McpConsumer.as_asgi()),
        re_path(r"", django_application),
    ]
