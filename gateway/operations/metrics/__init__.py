"""The gateway's Prometheus metrics (`GET /metrics`).

- `families`: every metric, defined once, and the small functions the gateway's code calls;
- `observer`: the call monitor's observer that counts tool calls, durations and bytes;
- `endpoint`: the /metrics ASGI application (bearer token, text format);
- `multiprocess`: the folder the workers of one host share their counts through.

Importing this package imports nothing of prometheus_client: `multiprocess` must set the
library's folder before the library is first imported (`manage.py serve` does).
"""
