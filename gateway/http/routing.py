"""Where an HTTP request goes: /mcp to the MCP consumer, /metrics to Prometheus' scrape,
the rest to Django."""

from typing import Any

from django.urls import path, re_path

from gateway.http.consumers import McpConsumer
from gateway.operations.metrics.endpoint import metrics_application


def http_routes(django_application: Any) -> list[Any]:
    """URL patterns for Channels' URLRouter."""
    return [
        path("mcp", McpConsumer.as_asgi()),
        path("metrics", metrics_application),
        re_path(r"", django_application),
    ]
