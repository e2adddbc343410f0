"""ASGI entry point: /mcp goes to the MCP gateway, everything else to Django.

Process-wide tuning for serving is made by the servers' launchers
(`gateway/serving/process_tuning.py`), not here: tests that drive this application keep the
interpreter's defaults.
"""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "localrouter.settings")

django_application = get_asgi_application()

from gateway.http.routing import http_routes  # noqa: E402  (needs Django set up first)

application = ProtocolTypeRouter({"http": URLRouter(http_routes(django_application))})
