"""The /mcp endpoint: a thin Channels consumer in front of the SDK's Streamable HTTP.

It owns what is the gateway's: body limit, Origin/Host checks, bearer-token
authentication and handing the request to the session manager with the client
attached. The SDK does the protocol (both eras), sessions and streams.
"""

from __future__ import annotations

import asyncio
import logging

from channels.consumer import AsyncConsumer
from channels.exceptions import StopConsumer
from django.conf import settings
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from gateway import http_errors
from gateway.identity import bearer_token, identities
from gateway.runtime import current_client, get_gateway, get_host
from gateway.server import current_instructions

logger = logging.getLogger(__name__)


class McpConsumer(AsyncConsumer):
    """One HTTP exchange on /mcp."""

    async def websocket_connect(self, message: dict) -> None:  # pragma: no cover - not routed
        raise StopConsumer()

    async def http_request(self, message: dict) -> None:
        if not hasattr(self, "body"):
            self.body: list[bytes] = []
            self.size = 0
            self.task: asyncio.Task | None = None
            self.disconnected = asyncio.Event()
        chunk = message.get("body", b"")
        self.size += len(chunk)
        if self.size > settings.MCP_MAX_BODY_BYTES:
            limit = settings.MCP_MAX_BODY_BYTES
            await self.refuse(*http_errors.refusal(413, f"request body over {limit} bytes"))
            raise StopConsumer()
        self.body.append(chunk)
        if not message.get("more_body"):
            self.task = asyncio.create_task(self.serve(b"".join(self.body)))

    async def http_disconnect(self, message: dict) -> None:
        if hasattr(self, "disconnected"):
            self.disconnected.set()
            if self.task is not None and not self.task.done():
                self.task.cancel()
        raise StopConsumer()

    async def serve(self, body: bytes) -> None:
        try:
            refused = await self.check()
            if refused is not None:
                await self.refuse(*refused)
                return
            if b'"initialize"' in body:
                # The handshake's instructions name the upstreams this client may use.
                gateway = get_gateway()
                identity = current_client.get()
                current_instructions.set(await gateway.instructions_for_identity(identity))
            await get_host().handle(self.scope_for_sdk, self.receive_for_sdk(body), self.send)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("unexpected error serving /mcp")
            await self.refuse(*http_errors.refusal(500, "internal error; see the server log"))

    async def check(self) -> tuple | None:
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
        method = self.scope["method"]
        content_type = headers.get(b"content-type", "")
        if method == "POST" and not content_type.lower().startswith("application/json"):
            return http_errors.refusal(415, "Content-Type must be application/json")
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
