"""The gateway's MCP server: SDK `Server` handlers that delegate to the caller's session."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import ListenHandler

from gateway.catalog.merged import instructions_text
from gateway.seams.mcp_sdk_seam import default_discover
from gateway.sessions.list_change_bus import ListChangeBus
from gateway.sessions.registry import SessionRegistry

# Set by the consumer for each request; the handshake's instructions depend on the client.
current_instructions: ContextVar[str | None] = ContextVar("current_instructions", default=None)

SERVER_NAME = "localrouter"
NOTIFICATIONS = NotificationOptions(
    prompts_changed=True, resources_changed=True, tools_changed=True
)


class GatewayServer(Server):
    """An SDK server whose `initialize` instructions are computed per client."""

    def create_initialization_options(self, *args: Any, **kwargs: Any) -> InitializationOptions:
        kwargs.setdefault("notification_options", NOTIFICATIONS)
        options = super().create_initialization_options(*args, **kwargs)
        instructions = current_instructions.get()
        if instructions is not None:
            options = options.model_copy(update={"instructions": instructions})
        return options


def build_server(sessions: SessionRegistry, list_changes: ListChangeBus) -> GatewayServer:
    """The SDK server with one handler per MCP method the gateway serves: each finds the
    caller's gateway session and asks it."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        session = sessions.session_for(ctx)
        catalog = await session.catalog()
        problems = catalog.problems()
        meta = {"localrouter/unavailable": problems} if problems else None
        return types.ListToolsResult(tools=await session.visible_tools(), _meta=meta)

    async def view(ctx):
        return await sessions.session_for(ctx).view()

    async def call_tool(
        ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        session = sessions.session_for(ctx)
        return await session.call_tool(ctx, params)

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=(await view(ctx)).resources())

    async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=(await view(ctx)).templates())

    async def read_resource(
        ctx, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        session = sessions.session_for(ctx)
        return await session.read_resource(str(params.uri))

    async def list_prompts(ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=(await view(ctx)).prompts())

    async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        session = sessions.session_for(ctx)
        return await session.get_prompt(params.name, params.arguments)

    async def complete(ctx, params: types.CompleteRequestParams) -> types.CompleteResult:
        return await sessions.session_for(ctx).complete(params)

    server = GatewayServer(
        SERVER_NAME,
        version="0.1.0",
        title="LocalRouter",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
        on_subscriptions_listen=ListenHandler(list_changes.bus),
        get_tool_input_schema=sessions.tool_input_schema,
    )
    # The SDK's default middleware stays: its span per request is the exchange's span, and
    # it continues the client's trace from the request's `_meta` (gateway/operations/tracing.py).

    async def discover(ctx, params) -> types.DiscoverResult:
        result = await default_discover(server, ctx, params)
        view = await sessions.session_for(ctx).view()
        instructions = instructions_text(view.catalog, view.plan)
        return result.model_copy(update={"instructions": instructions})

    server.add_request_handler("server/discover", types.RequestParams, discover)
    return server
