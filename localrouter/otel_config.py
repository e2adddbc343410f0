"""Where the standard OTEL_* variables ask LocalRouter to export its traces, checked at start-up.

Only OTLP over HTTP (protobuf) is built in. Nothing is exported unless an OTLP endpoint is
set (or `OTEL_TRACES_EXPORTER=otlp` asks for the default one); `OTEL_SDK_DISABLED=true` or
`OTEL_TRACES_EXPORTER=none` turn export off. Trace context reaches the upstreams either way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from localrouter.config import ConfigError

DEFAULT_ENDPOINT = "http://localhost:4318"
"""The OTLP/HTTP endpoint OpenTelemetry defaults to (a collector on this machine)."""
TRACES_PATH = "/v1/traces"
PROTOCOL = "http/protobuf"
EXPORTERS = ("otlp", "none")


def traces_endpoint(environ: Mapping[str, str] = os.environ) -> str:
    """The URL spans are sent to (OTLP/HTTP), or '' when traces are not exported.

    `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is; `OTEL_EXPORTER_OTLP_ENDPOINT`
    gets `/v1/traces` appended, as OpenTelemetry's SDKs do.

    Raises:
        ConfigError: a variable asks for another exporter or protocol, or an endpoint is
            not an http(s) URL.
    """
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return ""
    exporters = _exporters(environ)
    signal_endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    base_endpoint = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    asked = "otlp" in exporters or (not exporters and (signal_endpoint or base_endpoint))
    if not asked:
        return ""
    _check_protocol(environ)
    if signal_endpoint:
        return _http_url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", signal_endpoint)
    base = _http_url("OTEL_EXPORTER_OTLP_ENDPOINT", base_endpoint or DEFAULT_ENDPOINT)
    return base.rstrip("/") + TRACES_PATH


def _exporters(environ: Mapping[str, str]) -> set[str]:
    names = {
        name.strip().lower()
        for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")
        if name.strip()
    }
    unsupported = names - set(EXPORTERS)
    if unsupported:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER: {', '.join(sorted(unsupported))} is not built in "
            f"(use {' or '.join(EXPORTERS)})"
        )
    return names


def _check_protocol(environ: Mapping[str, str]) -> None:
    """The traces' own protocol variable wins over the general one."""
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        value = environ.get(name, "").strip()
        if value:
            if value != PROTOCOL:
                raise ConfigError(f"{name}: only {PROTOCOL} is built in (got {value!r})")
            return


def _http_url(name: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{name}: expected an http(s) URL such as {DEFAULT_ENDPOINT}")
    return value
