"""The /mcp endpoint: a thin Channels consumer in front of the SDK's Streamable HTTP.

It owns what is the gateway's: body limit, Origin/Host checks, bearer-token
authentication and handing the request to the session manager with the client
attached. The SDK does the protocol (both eras), sessions and streams.
"""

from __future__ import annotations

import asyncio
import logging

import anyio
from channels.consumer import AsyncConsumer, get_handler_name
from channels.exceptions import StopConsumer
from django.conf import settings
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from gateway import http_errors
from gateway.envelope import Envelope, inspect_body
from gateway.identity import bearer_token, identities
from gateway.runtime import current_client, get_gateway, get_host
from gateway.server import current_instructions

logger = logging.getLogger(__name__)


# Exchanges still finishing after their consumer has gone (asyncio keeps only weak refs).
_finishing: set[asyncio.Task] = set()


class McpConsumer(AsyncConsumer):
    """One HTTP exchange on /mcp."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.body: list[bytes] = []
        self.size = 0
        self.task: asyncio.Task | None = None
        self.disconnected = asyncio.Event()
        self.response_started = False
        self.response_finished = False
        self.envelope = Envelope()

    async def http_request(self, message: dict) -> None:
        chunk = message.get("body", b"")
        self.size += len(chunk)
        if self.size > settings.MCP_MAX_BODY_BYTES:
            limit = settings.MCP_MAX_BODY_BYTES
            await self.refuse(*http_errors.refusal(413, f"request body over {limit} bytes"))
            raise StopConsumer()
        self.body.append(chunk)
        if not message.get("more_body"):
            self.task = asyncio.create_task(self.serve(b"".join(self.body)))
            _finishing.add(self.task)
            self.task.add_done_callback(_finishing.discard)

    async def dispatch(self, message: dict) -> None:
        # Channels closes stale DB connections before every message, a thread hop each
        # time; this consumer's database work runs in worker threads that do it themselves.
        handler = getattr(self, get_handler_name(message), None)
        if handler is not None:
            await handler(message)

    async def http_disconnect(self, message: dict) -> None:
        self.disconnected.set()
        # Daphne reports a disconnect as soon as a response is complete; only a stream the
        # client left early is cancelled (the SDK may still be settling the session).
        if self.task is not None and not self.task.done() and not self.response_finished:
            self.task.cancel()
        raise StopConsumer()

    async def serve(self, body: bytes) -> None:
        try:
            refused = await self.check(body)
            if refused is not None:
                await self.refuse(*refused)
                return
            if self.envelope.method == "initialize":
                # The handshake's instructions name the upstreams this client may use.
                instructions = await get_gateway().instructions_for_identity(current_client.get())
                current_instructions.set(instructions)
            receive = self.receive_for_sdk(body)
            await get_host().handle(self.scope_for_sdk, receive, self.send_tracked)
        except asyncio.CancelledError:
            raise
        except anyio.ClosedResourceError:
            # The session ended (DELETE, expiry) while this request was on its way in.
            logger.info("request for a session that was closing")
            if not self.response_started:
                await self.refuse(*http_errors.refusal(404, "Session not found"))
        except Exception:
            logger.exception("unexpected error serving /mcp")
            if not self.response_started:
                await self.refuse(*http_errors.refusal(500, "internal error; see the server log"))

    async def send_tracked(self, message: dict) -> None:
        """Send to the client, noting when the response has begun."""
        if message["type"] == "http.response.start":
            self.response_started = True
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            self.response_finished = True
        await self.send(message)

    async def check(self, body: bytes) -> tuple | None:
        headers = dict((k.lower(), v.decode("latin-1")) for k, v in self.scope["headers"])
        if not http_errors.host_allowed(headers.get(b"host"), settings.ALLOWED_HOSTS):
            return http_errors.refusal(421, "Host not allowed (see ALLOWED_HOSTS)")
        if not http_errors.origin_allowed(headers.get(b"origin"), settings.MCP_ALLOWED_ORIGINS):
            return http_errors.refusal(403, "Origin not allowed (see LOCALROUTER_ALLOWED_ORIGINS)")
        token = bearer_token(self.scope["headers"])
        if token is None:
            return http_errors.unauthorized("missing bearer token")
        identity = await identities.authenticate(token)
        if identity is None:
            return http_errors.unauthorized("invalid or revoked token")
        if self.scope["method"] == "POST":
            content_type = headers.get(b"content-type", "")
            if not content_type.lower().startswith("application/json"):
                return http_errors.refusal(415, "Content-Type must be application/json")
            self.envelope = inspect_body(body)
            if self.envelope.error is not None:
                return http_errors.refusal(400, self.envelope.error[1], code=self.envelope.error[0])
        current_client.set(identity)
        access = AccessToken(token="", client_id=str(identity.id), scopes=[])
        self.scope_for_sdk = {**self.scope, "user": AuthenticatedUser(access)}
        return None

    def receive_for_sdk(self, body: bytes):
        """An ASGI receive: the whole body once, then wait for the client to go away."""
        delivered = False

        async def receive() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await self.disconnected.wait()
            return {"type": "http.disconnect"}

        return receive

    async def refuse(self, status: int, headers: list, body: bytes) -> None:
        await self.send({"type": "http.response.start", "status": status, "headers": headers})
        await self.send({"type": "http.response.body", "body": body})
