"""HTTP-level behaviour of /mcp through daphne: authentication, sessions, Origin, bad input.

The same checks in full, in process and faster, are in tests/inprocess/.
"""

import json

import pytest

from tests.e2e.live import INITIALIZE

pytestmark = pytest.mark.anyio

ACCEPT = "application/json, text/event-stream"


def rpc_error(response) -> dict:
    text = response.text
    if text.startswith("event:") or "\ndata:" in text or text.startswith("data:"):
        data = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
        return json.loads(data)["error"]
    return response.json()["error"]


async def open_session(live, token: str) -> tuple[str, dict]:
    async with live.http(token) as http:
        response = await http.post(live.url, json=INITIALIZE, headers={"Accept": ACCEPT})
        assert response.status_code == 200, response.text
        session_id = response.headers["mcp-session-id"]
        headers = {
            "Accept": ACCEPT,
            "Mcp-Session-Id": session_id,
            "MCP-Protocol-Version": "2025-06-18",
        }
        await http.post(
            live.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=headers,
        )
        return session_id, headers


@pytest.mark.parametrize(
    ("token", "reason"),
    [(None, "missing bearer token"), ("lr_not-a-real-token", "invalid or revoked token")],
)
async def test_requests_without_a_valid_token_get_401_with_a_bearer_challenge(live, token, reason):
    async with live.http(token) as http:
        response = await http.post(live.url, json=INITIALIZE, headers={"Accept": ACCEPT})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert reason in response.json()["error"]["message"]


async def test_unknown_session_is_404_and_missing_session_is_400(live):
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    async with live.http(live.tokens["alice"]) as http:
        unknown = await http.post(
            live.url,
            json=listing,
            headers={
                "Accept": ACCEPT,
                "Mcp-Session-Id": "f" * 32,
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        missing = await http.post(
            live.url, json=listing, headers={"Accept": ACCEPT, "MCP-Protocol-Version": "2025-06-18"}
        )
    assert unknown.status_code == 404
    assert missing.status_code == 400


async def test_delete_ends_the_session(live):
    session_id, headers = await open_session(live, live.tokens["alice"])
    async with live.http(live.tokens["alice"]) as http:
        assert (await http.delete(live.url, headers=headers)).status_code == 200
        again = await http.post(
            live.url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers
        )
    assert again.status_code == 404


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("https://evil.example", 403),
        ("http://127.0.0.1:5173", 200),
        ("https://allowed.example", 200),
    ],
)
async def test_origin_is_checked_against_the_allowed_origins(live, origin, status):
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url, json=INITIALIZE, headers={"Accept": ACCEPT, "Origin": origin}
        )
    assert response.status_code == status


async def test_a_foreign_host_header_is_refused(live):
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url, json=INITIALIZE, headers={"Accept": ACCEPT, "Host": "evil.example"}
        )
    assert response.status_code == 421


# Every malformed case is in tests/inprocess/test_refusals.py and test_exchange.py; here one
# refused before the SDK and one refused by it, through daphne.
@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/explode"}', -32601),
    ],
)
async def test_malformed_json_rpc_gets_the_matching_error_code(live, body, code):
    session_id, headers = await open_session(live, live.tokens["alice"])
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url, content=body, headers={**headers, "Content-Type": "application/json"}
        )
    assert response.status_code < 500
    assert rpc_error(response)["code"] == code


async def test_a_body_over_the_limit_gets_413(live):
    huge = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "'
        + b"a" * (9 << 20)
        + b'"}}'
    )
    async with live.http(live.tokens["alice"]) as http:
        response = await http.post(
            live.url, content=huge, headers={"Accept": ACCEPT, "Content-Type": "application/json"}
        )
    assert response.status_code == 413


async def test_wrong_content_type_gets_415_and_wrong_accept_gets_406(live):
    async with live.http(live.tokens["alice"]) as http:
        wrong_type = await http.post(
            live.url,
            content=json.dumps(INITIALIZE),
            headers={"Accept": ACCEPT, "Content-Type": "text/plain"},
        )
        wrong_accept = await http.post(live.url, json=INITIALIZE, headers={"Accept": "text/html"})
    assert wrong_type.status_code == 415
    assert wrong_accept.status_code == 406


async def test_nothing_above_failed_unexpectedly_in_the_gateway(live):
    assert "unexpected error serving /mcp" not in live.log()
