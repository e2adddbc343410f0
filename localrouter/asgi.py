"""ASGI entry point: /mcp goes to the MCP gateway, everything else to Django.

Process-wide tuning for serving is set here, not when Django loads its apps (tests and
management commands keep the interpreter's defaults).
"""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")

django_application = get_asgi_application()

from gateway.http.routing import http_routes  # noqa: E402  (needs Django set up first)
from indexing.engine.compressor import tune_thread_switching  # noqa: E402

tune_thread_switching()

application = ProtocolTypeRouter({"http": URLRouter(http_routes(django_application))})
