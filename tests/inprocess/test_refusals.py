"""/mcp refuses what it cannot serve before the SDK sees it: HTTP status and JSON-RPC error."""

import json

import pytest

from gateway.runtime import running_gateway
from tests.inprocess.asgi_http import INITIALIZE, post, request, request_headers
from tests.inprocess.database import add_client

pytestmark = [pytest.mark.anyio, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("token", "reason"),
    [(None, "missing bearer token"), ("lr_not-a-real-token", "invalid or revoked token")],
)
async def test_requests_without_a_valid_token_get_401_with_a_bearer_challenge(token, reason):
    answer = await post(token, INITIALIZE)
    assert answer.status == 401
    challenge = answer.headers["www-authenticate"]
    metadata = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith(f'Bearer resource_metadata="{metadata}", scope="mcp"')
    assert ('error="invalid_token"' in challenge) == (token is not None)
    assert answer.error["message"] == reason


async def test_an_inactive_clients_token_gets_401():
    token = await add_client("revoked", is_active=False)
    answer = await post(token, INITIALIZE)
    assert answer.status == 401
    assert answer.error["message"] == "invalid or revoked token"


async def test_a_foreign_host_header_is_refused_before_authentication():
    answer = await post(None, INITIALIZE, Host="evil.example")
    assert answer.status == 421


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("https://evil.example", 403),
        ("http://127.0.0.1:5173", 200),
        ("http://127.0.0.1:notaport", 403),
        ("https://allowed.example", 200),
    ],
)
async def test_origin_is_checked_against_the_allowed_origins(settings, origin, status):
    settings.MCP_ALLOWED_ORIGINS = ["http://127.0.0.1:*", "https://allowed.example"]
    token = await add_client("alice")
    answer = await post(token, INITIALIZE, Origin=origin)
    assert answer.status == status
    if status == 403:
        assert "Origin not allowed" in answer.error["message"]


async def test_a_refused_request_starts_no_gateway():
    await post(None, INITIALIZE)
    assert running_gateway() is None


async def test_wrong_content_type_gets_415():
    token = await add_client("alice")
    answer = await post(token, INITIALIZE, Content_Type="text/plain")
    assert answer.status == 415
    assert answer.error["message"] == "Content-Type must be application/json"


async def test_a_body_over_the_limit_gets_413_while_it_arrives(settings):
    settings.MCP_MAX_BODY_BYTES = 4096
    token = await add_client("alice")
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "' + b"a" * 8192
    answer = await request("POST", request_headers(token), body + b'"}}', chunk_size=1024)
    assert answer.status == 413
    assert answer.error["message"] == "request body over 4096 bytes"


async def test_a_body_at_the_limit_in_chunks_is_served(settings):
    settings.MCP_MAX_BODY_BYTES = 4096
    token = await add_client("alice")
    padding = {"x": "a" * 3000}
    message = {**INITIALIZE, "params": {**INITIALIZE["params"], "_meta": padding}}
    body = json.dumps(message).encode()
    assert len(body) <= 4096
    answer = await request("POST", request_headers(token), body, chunk_size=512)
    assert answer.status == 200
    assert answer.messages()[0]["result"]["serverInfo"]["name"] == "localrouter"


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b"{not json", -32700, "Parse error: "),
        (b"\xff\xfe", -32700, "Parse error: "),
        (b'{"jsonrpc": "2.0", "id": 5}', -32600, 'Invalid Request: no "method"'),
        (
            b'[{"jsonrpc": "2.0", "id": 5, "method": "ping"}]',
            -32600,
            "Invalid Request: expected one JSON-RPC object",
        ),
        (
            b'{"jsonrpc": "1.0", "id": 5, "method": "ping"}',
            -32600,
            'Invalid Request: "jsonrpc" must be "2.0"',
        ),
        (
            b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
            -32600,
            'Invalid Request: "id" must be a string or number',
        ),
        (
            b'{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": ["x"]}',
            -32602,
            'Invalid params: "params" must be an object',
        ),
    ],
)
async def test_a_malformed_envelope_gets_400_and_the_matching_error(body, code, message):
    token = await add_client("alice")
    answer = await post(token, body)
    assert answer.status == 400
    assert answer.headers["content-type"] == "application/json"
    assert answer.error["code"] == code
    assert answer.error["message"].startswith(message)


@pytest.mark.parametrize("depth", [2_000, 100_000])
@pytest.mark.parametrize(("opening", "closing"), [(b"[", b"]"), (b'{"a":', b"}")])
async def test_a_deeply_nested_body_gets_400_parse_error(depth, opening, closing, caplog):
    token = await add_client("alice")
    nested = opening * depth + b"1" + closing * depth
    body = b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": ' + nested + b"}}"
    answer = await post(token, body)
    assert answer.status == 400
    assert answer.error["code"] == -32700
    assert "nested deeper than 200 levels" in answer.error["message"]
    assert not [r for r in caplog.records if r.exc_info]


async def test_brackets_inside_strings_do_not_count_as_nesting():
    token = await add_client("alice")
    deep_text = "[" * 5000
    message = {**INITIALIZE, "params": {**INITIALIZE["params"], "_meta": {"x": deep_text}}}
    answer = await post(token, message)
    assert answer.status == 200


def initialize_with_meta(value: str) -> bytes:
    """An initialize request whose `_meta.x` is `value`, a JSON text (3 levels around it)."""
    message = {**INITIALIZE, "params": {**INITIALIZE["params"], "_meta": {"x": "VALUE"}}}
    return json.dumps(message).replace('"VALUE"', value).encode()


@pytest.mark.parametrize(("depth", "status"), [(200, 200), (201, 400)])
async def test_the_nesting_limit_is_the_sdks_own(depth, status):
    token = await add_client("alice")
    nested = "[" * (depth - 3) + "1" + "]" * (depth - 3)
    answer = await post(token, initialize_with_meta(nested))
    assert answer.status == status
    if status == 400:
        assert answer.error["message"] == "Parse error: JSON nested deeper than 200 levels"


@pytest.mark.parametrize("number", ["NaN", "-Infinity", "1e400", str(2**70)])
async def test_numbers_the_sdk_reads_pass_the_envelope(number):
    token = await add_client("alice")
    answer = await post(token, initialize_with_meta(number))
    assert answer.status == 200


async def test_a_request_id_beyond_64_bits_is_answered_with_that_id():
    token = await add_client("alice")
    answer = await post(token, {**INITIALIZE, "id": 2**70})
    assert answer.status == 200
    assert answer.messages()[0]["id"] == 2**70
