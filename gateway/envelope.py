"""A first look at a POSTed JSON-RPC message: malformed envelopes are refused before the SDK."""

from __future__ import annotations

import json
from dataclasses import dataclass

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True)
class Envelope:
    """What the consumer needs to know about a message; `error` is set when it is refused."""

    method: str | None = None
    error: tuple[int, str] | None = None


def inspect_body(body: bytes) -> Envelope:
    """Parse and check the JSON-RPC 2.0 envelope of one POSTed message."""
    try:
        message = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return Envelope(error=(PARSE_ERROR, f"Parse error: {error}"))
    if not isinstance(message, dict):
        return Envelope(error=(INVALID_REQUEST, "Invalid Request: expected one JSON-RPC object"))
    if message.get("jsonrpc") != "2.0":
        return Envelope(error=(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"'))
    request_id = message.get("id")
    if "id" in message and (isinstance(request_id, bool) or not isinstance(request_id, (str, int))):
        return Envelope(error=(INVALID_REQUEST, 'Invalid Request: "id" must be a string or number'))
    if "method" in message:
        method = message["method"]
        if not isinstance(method, str) or not method:
            return Envelope(error=(INVALID_REQUEST, 'Invalid Request: "method" must be a string'))
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return Envelope(error=(INVALID_REQUEST, 'Invalid Request: "params" must be an object'))
        return Envelope(method=method)
    if "id" in message and ("result" in message or "error" in message):
        return Envelope()  # a response to a server-to-client request
    return Envelope(error=(INVALID_REQUEST, 'Invalid Request: no "method"'))
