"""The /mcp endpoint (placeholder until the gateway core lands)."""

import json

from channels.generic.http import AsyncHttpConsumer


class McpConsumer(AsyncHttpConsumer):
    """Answers 503 until the MCP gateway is wired in."""

    async def handle(self, body: bytes) -> None:
        payload = {"error": "the MCP endpoint is not available yet"}
        await self.send_response(
            503, json.dumps(payload).encode(), headers=[(b"content-type", b"application/json")]
        )
