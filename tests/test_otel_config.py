"""Where the OTEL_* variables send traces: only where they say, nowhere by default."""

import re

import pytest

from localrouter.config import ConfigError
from localrouter.otel_config import traces_endpoint

COLLECTOR = "http://127.0.0.1:4318"


@pytest.mark.parametrize(
    ("environ", "endpoint"),
    [
        ({}, ""),
        ({"OTEL_SERVICE_NAME": "gw"}, ""),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR}, f"{COLLECTOR}/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": f"{COLLECTOR}/"}, f"{COLLECTOR}/v1/traces"),
        (
            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://otel.example/ingest"},
            "https://otel.example/ingest",
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR,
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces.example:4318/v1/traces",
            },
            "http://traces.example:4318/v1/traces",
        ),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, "http://localhost:4318/v1/traces"),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR}, ""),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR}, ""),
        (
            {"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR},
            f"{COLLECTOR}/v1/traces",
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR,
            },
            f"{COLLECTOR}/v1/traces",
        ),
        # The traces' own protocol variable wins over the general one.
        (
            {
                "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
                "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
                "OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR,
            },
            f"{COLLECTOR}/v1/traces",
        ),
        # What is not exported is not checked.
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, ""),
    ],
)
def test_traces_go_only_where_the_variables_say(environ, endpoint):
    assert traces_endpoint(environ) == endpoint


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER: zipkin is not built in"),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": COLLECTOR, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
            "OTEL_EXPORTER_OTLP_ENDPOINT: expected an http(s) URL",
        ),
        (
            {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://user:secret@collector"},
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: expected an http(s) URL",
        ),
    ],
)
def test_a_setting_that_cannot_be_honoured_is_named(environ, message):
    with pytest.raises(ConfigError, match="^" + re.escape(message)) as error:
        traces_endpoint(environ)
    assert "secret" not in str(error.value)
