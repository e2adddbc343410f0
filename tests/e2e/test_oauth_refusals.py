"""Hostile and mistaken OAuth requests against a live gateway: each gets a clear OAuth or
HTTP error, and nothing is granted. Raw HTTP, a member logged into the admin by cookie."""

from __future__ import annotations

import html
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import httpx2
import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from oauth2_provider.models import AccessToken

from clients.tokens import hash_token
from tests.e2e.live import INITIALIZE, LiveGateway, running_gateway, stdio_upstream
from tests.e2e.oauth_sign_in import (
    authorize,
    base_url,
    logged_in,
    pkce_pair,
    redirect_query,
)
from tests.fixtures.tls_documents import TlsDocuments, tls_documents

pytestmark = pytest.mark.anyio
PASSWORD = "pw-oauth-refusals-1"
REDIRECT = "http://127.0.0.1:43123/callback"
ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Iterator[TlsDocuments]:
    with tls_documents(tmp_path_factory.mktemp("tls")) as served:
        yield served


@pytest.fixture(scope="module")
def gateway(tmp_path_factory, documents) -> Iterator[LiveGateway]:
    """A gateway as deployed: metadata documents on private addresses are refused."""
    with running_gateway(
        tmp_path_factory.mktemp("oauth-refusals"),
        [stdio_upstream("echo", "echo_server.py")],
        [],
        SSL_CERT_FILE=str(documents.ca_file),  # trusted, so only the address refuses it
    ) as live:
        live.orm(lambda: User.objects.create_user("mia", "", PASSWORD, is_staff=True))
        yield live


@asynccontextmanager
async def member(gateway: LiveGateway) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client logged into the admin as the member."""
    async with httpx2.AsyncClient(timeout=30) as http:
        await logged_in(http, gateway, "mia", PASSWORD)
        yield http


async def register(http: httpx2.AsyncClient, gateway: LiveGateway) -> str:
    """Dynamic client registration (RFC 7591) of a public client; its client_id."""
    answer = await http.post(
        f"{base_url(gateway)}/oauth/register/",
        json={
            "client_name": "Hostile tester",
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        },
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["client_id"]


async def code_for(http, gateway, client_id: str, challenge: str) -> str:
    answer = await authorize(
        http,
        gateway,
        client_id=client_id,
        redirect_uri=REDIRECT,
        code_challenge=challenge,
        code_challenge_method="S256",
        state="s1",
        resource=gateway.url,
    )
    return redirect_query(answer)["code"]


async def exchange(http, gateway, client_id: str, code: str, verifier: str) -> httpx2.Response:
    return await http.post(
        f"{base_url(gateway)}/oauth/token/",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": client_id,
            "code_verifier": verifier,
            "resource": gateway.url,
        },
    )


async def tokens_for(http, gateway) -> tuple[str, dict]:
    """(client_id, token response) after a complete, honest authorization."""
    client_id = await register(http, gateway)
    verifier, challenge = pkce_pair()
    answer = await exchange(
        http, gateway, client_id, await code_for(http, gateway, client_id, challenge), verifier
    )
    assert answer.status_code == 200, answer.text
    return client_id, answer.json()


async def mcp_status(url: str, token: str) -> tuple[int, str]:
    """An initialize at `url` with `token`: the status and the WWW-Authenticate challenge."""
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.post(
            url, json=INITIALIZE, headers={"Authorization": f"Bearer {token}", "Accept": ACCEPT}
        )
    return answer.status_code, answer.headers.get("www-authenticate", "")


async def test_the_metadata_documents_name_this_gateway(gateway):
    base = base_url(gateway)
    async with httpx2.AsyncClient(timeout=30) as http:
        plain = (await http.get(f"{base}/.well-known/oauth-protected-resource")).json()
        suffixed = (await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")).json()
        server = (await http.get(f"{base}/.well-known/oauth-authorization-server")).json()
        challenge = (await http.post(gateway.url, json=INITIALIZE)).headers["www-authenticate"]
    assert plain == suffixed
    assert plain["resource"] == gateway.url
    assert plain["authorization_servers"] == [base] and plain["scopes_supported"] == ["mcp"]
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
    assert server["issuer"] == base
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["response_types_supported"] == ["code"]
    assert server["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert server["registration_endpoint"] == f"{base}/oauth/register/"
    assert server["revocation_endpoint"] == f"{base}/oauth/revoke/"
    assert server["client_id_metadata_document_supported"] is True
    assert server["authorization_response_iss_parameter_supported"] is True


async def test_an_honest_token_works_and_a_replayed_code_gets_nothing(gateway):
    async with member(gateway) as http:
        client_id = await register(http, gateway)
        verifier, challenge = pkce_pair()
        code = await code_for(http, gateway, client_id, challenge)
        first = await exchange(http, gateway, client_id, code, verifier)
        replay = await exchange(http, gateway, client_id, code, verifier)
    assert first.status_code == 200 and first.json()["scope"] == "mcp"
    assert (await mcp_status(gateway.url, first.json()["access_token"]))[0] == 200
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"


async def test_a_wrong_pkce_verifier_gets_no_token(gateway):
    async with member(gateway) as http:
        client_id = await register(http, gateway)
        _verifier, challenge = pkce_pair()
        code = await code_for(http, gateway, client_id, challenge)
        answer = await exchange(http, gateway, client_id, code, pkce_pair()[0])
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
    assert "access_token" not in answer.json()


@pytest.mark.parametrize(
    "pkce",
    [{}, {"code_challenge": "abc" * 15, "code_challenge_method": "plain"}],
    ids=["without PKCE", "plain PKCE"],
)
async def test_an_authorization_without_s256_pkce_is_refused(gateway, pkce):
    async with member(gateway) as http:
        client_id = await register(http, gateway)
        answer = await authorize(
            http, gateway, client_id=client_id, redirect_uri=REDIRECT, state="s2", **pkce
        )
    query = redirect_query(answer)
    assert query["error"] == "invalid_request" and "code" not in query
    assert query["state"] == "s2"


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://127.0.0.1:43124/callback",
        "http://127.0.0.1:43123/callback/x",
        "https://evil.example/cb",
    ],
)
async def test_a_redirect_uri_not_registered_is_refused_without_redirecting(gateway, redirect_uri):
    async with member(gateway) as http:
        client_id = await register(http, gateway)
        answer = await authorize(
            http,
            gateway,
            client_id=client_id,
            redirect_uri=redirect_uri,
            code_challenge=pkce_pair()[1],
            code_challenge_method="S256",
        )
    assert answer.status_code == 400 and "location" not in answer.headers
    assert "This request cannot be approved" in answer.text
    assert "invalid_request" in html.unescape(answer.text)


async def test_a_token_for_another_resource_is_not_issued_nor_accepted(gateway):
    async with member(gateway) as http:
        client_id = await register(http, gateway)
        elsewhere = await authorize(
            http,
            gateway,
            client_id=client_id,
            redirect_uri=REDIRECT,
            code_challenge=pkce_pair()[1],
            code_challenge_method="S256",
            resource="https://elsewhere.example/mcp",
        )
        _client_id, tokens = await tokens_for(http, gateway)
    assert redirect_query(elsewhere)["error"] == "invalid_target"
    # The same gateway under another name is another resource: the token's audience differs.
    other_name = gateway.url.replace("127.0.0.1", "localhost")
    status, challenge = await mcp_status(other_name, tokens["access_token"])
    assert status == 401 and "issued for another resource" in challenge
    assert (await mcp_status(gateway.url, tokens["access_token"]))[0] == 200


def expire(token: str) -> None:
    expired = timezone.now() - timedelta(seconds=1)
    AccessToken.objects.filter(token_checksum=hash_token(token)).update(expires=expired)


async def test_an_expired_token_is_refused(gateway):
    async with member(gateway) as http:
        _client_id, tokens = await tokens_for(http, gateway)
    gateway.orm(lambda: expire(tokens["access_token"]))
    with anyio.fail_after(10):  # a token is kept a second at most
        while (result := await mcp_status(gateway.url, tokens["access_token"]))[0] != 401:
            await anyio.sleep(0.2)
    assert 'error="invalid_token"' in result[1] and "expired" in result[1]


async def test_revocation_ends_the_token_and_a_reused_refresh_token_ends_its_family(gateway):
    base = base_url(gateway)
    async with member(gateway) as http:
        client_id, tokens = await tokens_for(http, gateway)
        refresh = {"grant_type": "refresh_token", "client_id": client_id}
        rotated = await http.post(
            f"{base}/oauth/token/", data={**refresh, "refresh_token": tokens["refresh_token"]}
        )
        reused = await http.post(
            f"{base}/oauth/token/", data={**refresh, "refresh_token": tokens["refresh_token"]}
        )
        after_reuse = await http.post(
            f"{base}/oauth/token/",
            data={**refresh, "refresh_token": rotated.json()["refresh_token"]},
        )
        _client_id, other = await tokens_for(http, gateway)
        revoked = await http.post(
            f"{base}/oauth/revoke/", data={"token": other["access_token"], "client_id": _client_id}
        )
    assert rotated.status_code == 200
    assert rotated.json()["refresh_token"] != tokens["refresh_token"]
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    assert after_reuse.status_code == 400  # reuse revoked the whole family (RFC 9700)
    assert revoked.status_code == 200
    with anyio.fail_after(10):
        while (await mcp_status(gateway.url, other["access_token"]))[0] != 401:
            await anyio.sleep(0.2)


async def test_no_token_code_or_secret_reaches_the_log(gateway):
    async with member(gateway) as http:
        _client_id, tokens = await tokens_for(http, gateway)
        await mcp_status(gateway.url, tokens["access_token"])
        await mcp_status(gateway.url, tokens["access_token"] + "x")
    log = gateway.log()
    assert tokens["access_token"] not in log and tokens["refresh_token"] not in log
    assert "Traceback" not in log


async def test_a_metadata_document_on_a_private_address_is_never_fetched(gateway, documents):
    client_id = f"{documents.base}/clients/inside.json"
    documents.documents["/clients/inside.json"] = json.dumps(
        {"client_id": client_id, "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
    ).encode()
    async with member(gateway) as http:
        answer = await authorize(
            http,
            gateway,
            client_id=client_id,
            redirect_uri=REDIRECT,
            code_challenge=pkce_pair()[1],
            code_challenge_method="S256",
        )
    assert answer.status_code == 400 and "location" not in answer.headers
    assert "This request cannot be approved" in answer.text
    assert documents.requests == []
