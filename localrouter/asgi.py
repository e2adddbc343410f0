"""ASGI entry point: /mcp goes to the MCP gateway, everything else to Django."""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")

django_application = get_asgi_application()

from gateway.routing import http_routes  # noqa: E402  (needs Django set up first)

application = ProtocolTypeRouter({"http": URLRouter(http_routes(django_application))})
