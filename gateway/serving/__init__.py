"""How LocalRouter is served: the HTTP servers' launchers, the stdio bridge, process tuning."""

APPLICATION = "localrouter.asgi:application"  # the ASGI application either server runs
