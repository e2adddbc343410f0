"""One /mcp HTTP exchange: checks, authentication, then the SDK (here or at the owner).

Used by the consumer for requests from clients, and by `forwarding` for requests another
worker passed on; both hand in an ASGI-style `receive` and `send`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from django.conf import settings
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from redis.exceptions import RedisError

from clients.oauth.resource import resource_metadata_url
from gateway.http import errors as http_errors
from gateway.http.asgi_headers import header
from gateway.http.envelope import Envelope, inspect_body
from gateway.http.inflight import DuplicateRequestId, ServerStopping
from gateway.http.protected_resource import resource_url
from gateway.http.relay import relay
from gateway.http.token_throttle import token_throttle
from gateway.operations.metrics import families as metrics
from gateway.runtime import Gateway, current_client, get_gateway
from gateway.sessions.identity import ClientIdentity, TokenRefusal, bearer_token, identities
from gateway.sessions.registry import client_key
from gateway.sessions.server import current_instructions

logger = logging.getLogger(__name__)
Send = Callable[[dict], Awaitable[None]]
Receive = Callable[[], Awaitable[dict]]


async def admit(
    scope: dict, body: bytes
) -> tuple[tuple | None, ClientIdentity | None, Envelope | None]:
    """(refusal, client, JSON-RPC envelope) for a request: Host, Origin, token, body checks."""
    headers = {k.lower(): v.decode("latin-1") for k, v in scope["headers"]}
    if not http_errors.host_allowed(headers.get(b"host"), settings.ALLOWED_HOSTS):
        return http_errors.refusal(421, "Host not allowed (see ALLOWED_HOSTS)"), None, None
    if not http_errors.origin_allowed(headers.get(b"origin"), settings.MCP_ALLOWED_ORIGINS):
        refusal = http_errors.refusal(403, "Origin not allowed (see LOCALROUTER_ALLOWED_ORIGINS)")
        return refusal, None, None
    if wait := token_throttle.retry_after(scope):
        return http_errors.throttled(wait), None, None
    resource = resource_url(scope)
    token = bearer_token(scope["headers"])
    if token is None:
        return http_errors.unauthorized(resource_metadata_url(resource)), None, None
    identity = await identities.authenticate(token, resource)
    if isinstance(identity, TokenRefusal):
        await token_throttle.failed(scope)
        refusal = http_errors.unauthorized(
            resource_metadata_url(resource), identity.error, identity.description
        )
        return refusal, None, None
    envelope = Envelope()
    if scope["method"] == "POST":
        if not headers.get(b"content-type", "").lower().startswith("application/json"):
            return http_errors.refusal(415, "Content-Type must be application/json"), None, None
        envelope = inspect_body(body)
        if envelope.error is not None:
            code, message = envelope.error
            return http_errors.refusal(400, message, code=code), None, None
    return None, identity, envelope


async def _owner_elsewhere(gateway: Gateway, scope: dict, identity: ClientIdentity) -> str | None:
    """The channel of the worker that owns this request, when it is not this one."""
    forwarding = gateway.forwarding
    mine = await forwarding.start(serve_exchange)
    session_id = header(scope["headers"], b"mcp-session-id")
    if session_id is not None:
        if gateway.host.owns(session_id):
            return None
        owner = await forwarding.directory.owner(session_id)
    elif header(scope["headers"], b"mcp-protocol-version") in MODERN_PROTOCOL_VERSIONS:
        owner = await forwarding.directory.claim(client_key(identity), mine)
    else:
        return None
    return owner if owner and owner != mine else None


def _claiming(gateway: Gateway, send: Send) -> Send:
    """A send that records this worker as owner of a session it is about to announce."""

    async def send_and_claim(event: dict) -> None:
        if event["type"] == "http.response.start":
            session_id = header(event.get("headers", ()), b"mcp-session-id")
            if session_id is not None:
                mine = await gateway.forwarding.start(serve_exchange)
                try:
                    await gateway.forwarding.directory.claim(session_id, mine)
                except (RedisError, OSError):  # the session works; it is not forwarded
                    logger.warning("could not record a new session's owner in Redis")
        await send(event)

    return send_and_claim


async def serve_exchange(
    scope: dict, body: bytes, receive: Receive, send: Send, *, forwarded: bool = False
) -> None:
    """Serve one exchange: refuse it, pass it to its owning worker, or run it here."""
    refusal, identity, envelope = await admit(scope, body)
    if refusal is not None:
        metrics.count_http_refusal(refusal[0])
        await http_errors.send_refusal(send, refusal)
        return
    gateway = get_gateway()
    current_client.set(identity)
    if gateway.forwarding is not None and not forwarded:
        try:
            owner = await _owner_elsewhere(gateway, scope, identity)
        except (RedisError, OSError):
            logger.warning("Redis did not answer who owns this request; 503", exc_info=True)
            await http_errors.send_refusal(send, http_errors.owner_busy())
            return
        if owner is not None:
            session = header(scope["headers"], b"mcp-session-id") is not None
            await relay(gateway.forwarding, owner, scope, body, send, session=session)
            return
        send = _claiming(gateway, send)
    if envelope.method == "initialize":
        # The handshake's instructions name the upstreams this client may use.
        current_instructions.set(await gateway.instructions_for_identity(identity))
    await _serve_here(gateway, scope, identity, envelope, receive, send)


async def _serve_here(
    gateway: Gateway,
    scope: dict,
    identity: ClientIdentity,
    envelope: Envelope,
    receive: Receive,
    send: Send,
) -> None:
    """Run the exchange in this worker's SDK host, unless it is stopping or the id is in use."""
    access = AccessToken(token="", client_id=str(identity.id), scopes=[])
    session_id = header(scope["headers"], b"mcp-session-id")
    # Keyed by client too: another client's guess at a session id learns nothing here.
    session_key = f"{identity.id}/{session_id}" if session_id else None
    try:
        with gateway.inflight.serving(
            session_key, envelope.request_id, answer=envelope.is_response
        ):
            await gateway.host.handle(
                {**scope, "user": AuthenticatedUser(access)},
                receive,
                send,
                request_id=envelope.request_id,
            )
    except DuplicateRequestId as error:
        metrics.count_http_refusal(400)
        refusal = http_errors.refusal(400, str(error), request_id=error.request_id)
        await http_errors.send_refusal(send, refusal)
    except ServerStopping:
        await http_errors.send_refusal(send, http_errors.stopping())
