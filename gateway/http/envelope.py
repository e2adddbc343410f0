"""A first look at a POSTed JSON-RPC message: malformed envelopes are refused before the SDK."""

from __future__ import annotations

from dataclasses import dataclass

import pydantic_core
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR

# The body is parsed as the SDK's Streamable HTTP transport parses it (`pydantic_core.from_json`),
# so the envelope accepts exactly what the SDK would. That parser has a fixed depth bound:
# a deeper text fails at level MAX_NESTING + 1, however deep it goes.
MAX_NESTING = 200
_TOO_DEEP = "recursion limit exceeded"  # the start of the parser's message past MAX_NESTING


@dataclass(frozen=True)
class Envelope:
    """What the consumer needs to know about a message; `error` is set when it is refused."""

    method: str | None = None
    request_id: str | int | None = None  # set for requests (not notifications)
    error: tuple[int, str] | None = None
    is_response: bool = False  # the client answering a server-to-client request


class NestedTooDeep(ValueError):
    """JSON text whose arrays and objects nest deeper than MAX_NESTING."""


def parse_json(text: bytes | str) -> object:
    """Parse JSON text as the SDK does, nesting bounded.

    Raises:
        NestedTooDeep: arrays and objects nest deeper than MAX_NESTING.
        ValueError: the text is not JSON (the parser's message says where).
    """
    try:
        return pydantic_core.from_json(text)
    except ValueError as error:
        if str(error).startswith(_TOO_DEEP):
            raise NestedTooDeep(f"JSON nested deeper than {MAX_NESTING} levels") from None
        raise


def nested_too_deep(text: bytes | str) -> bool:
    """Whether arrays and objects in JSON text nest deeper than MAX_NESTING, strings aside;
    for parsers without a bound of their own to check first (the text is parsed once)."""
    try:
        parse_json(text)
    except NestedTooDeep:
        return True
    except ValueError:
        return False
    return False


def inspect_body(body: bytes) -> Envelope:
    """Parse and check the JSON-RPC 2.0 envelope of one POSTed message."""
    try:
        message = parse_json(body)
    except ValueError as error:  # NestedTooDeep included
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
