"""A first look at a POSTed JSON-RPC message: malformed envelopes are refused before the SDK."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR

# The SDK's JSON parser refuses deeper documents too; checking first keeps the standard
# library's recursive parser away from them (2,000 levels overflow its recursion limit).
MAX_NESTING = 200
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP_PLUS_ONE = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # opening +1, closing -1


@dataclass(frozen=True)
class Envelope:
    """What the consumer needs to know about a message; `error` is set when it is refused."""

    method: str | None = None
    request_id: str | int | None = None  # set for requests (not notifications)
    error: tuple[int, str] | None = None
    is_response: bool = False  # the client answering a server-to-client request


def nested_too_deep(body: bytes) -> bool:
    """Whether arrays and objects in a JSON text nest deeper than MAX_NESTING (strings aside)."""
    if body.count(b"[") + body.count(b"{") <= MAX_NESTING:
        return False
    # Escapes go first so that every remaining quote opens or closes a string: linear time.
    brackets = _STRING.sub(b"", _ESCAPE.sub(b"", body)).translate(None, _NOT_BRACKET)
    steps = np.frombuffer(brackets.translate(_STEP_PLUS_ONE), dtype=np.uint8).astype(np.int32) - 1
    return int(np.cumsum(steps).max(initial=0)) > MAX_NESTING


def inspect_body(body: bytes) -> Envelope:
    """Parse and check the JSON-RPC 2.0 envelope of one POSTed message."""
    if nested_too_deep(body):
        return Envelope(
            error=(PARSE_ERROR, f"Parse error: JSON nested deeper than {MAX_NESTING} levels")
        )
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
            return Envelope(error=(INVALID_PARAMS, 'Invalid params: "params" must be an object'))
        return Envelope(method=method, request_id=request_id)
    if "id" in message and ("result" in message or "error" in message):
        return Envelope(is_response=True)  # a response to a server-to-client request
    return Envelope(error=(INVALID_REQUEST, 'Invalid Request: no "method"'))
