"""A gateway session: one client's live view of its upstreams, and what it did.

One per handshake-era MCP session; one per client for 2026-07-28 clients, who have
no sessions. The SDK owns the protocol; this object owns routing and statistics.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from gateway.catalog import MergedCatalog, merge
from gateway.identity import ClientIdentity
from gateway.upstreams import UpstreamError
from indexing.compressor import ResponseCompressor
from indexing.store import SessionStore
from indexing.tool_results import compress_result, index_tools, run_index_tool, strip_output_schema

logger = logging.getLogger(__name__)

UNKNOWN_TOOL = "Unknown tool: {name}"


@dataclass
class SessionStats:
    """Counters kept in memory and written to the session record off the hot path."""

    calls: Counter = field(default_factory=Counter)  # "<upstream>__<tool>" -> count
    errors: int = 0
    bytes_from_upstreams: int = 0
    bytes_to_client: int = 0

    @property
    def call_count(self) -> int:
        return sum(self.calls.values())


def tool_error(message: str) -> types.CallToolResult:
    """A tool result that tells the agent what went wrong."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


def result_size(result: types.CallToolResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_none=True))


class GatewaySession:
    """Routes one client's requests to the upstreams it may use."""

    def __init__(self, gateway: Any, identity: ClientIdentity, *, key: str, protocol_version: str):
        self.gateway = gateway
        self.identity = identity
        self.key = key
        self.record_id = uuid.uuid4().hex
        self.protocol_version = protocol_version
        self.client_name = ""
        self.client_version = ""
        self.started = time.time()
        self.last_activity = time.monotonic()
        self.stats = SessionStats()
        self.closed = False
        self._catalog: MergedCatalog | None = None
        self._catalog_version = -1
        self.connection: Any = None  # the SDK connection, for change notifications
        self._store: SessionStore | None = None

    @property
    def store(self) -> SessionStore:
        """This session's index of large responses, created on first use."""
        if self._store is None:
            self._store = SessionStore()
        return self._store

    def touch(self) -> None:
        self.last_activity = time.monotonic()

    async def catalog(self) -> MergedCatalog:
        """The merged catalog, rebuilt when an upstream listing changed."""
        listings = self.gateway.listings
        if self._catalog is None or self._catalog_version != listings.version:
            specs = await self.gateway.directory.specs()
            wanted = [s for n, s in specs.items() if self.identity.may_use_upstream(n)]
            read = await listings.get(wanted)
            self._catalog = merge(self.identity, read)
            self._catalog_version = listings.version
        return self._catalog

    def indexed_labels(self) -> list:
        """Statistics of the responses this session indexed."""
        return list(self._store.stats) if self._store is not None else []

    async def visible_tools(self) -> list[types.Tool]:
        """The tools this client sees in `tools/list`, with IndexSearch/IndexRead when indexing."""
        tools = (await self.catalog()).tools
        settings = self.identity.settings
        if not settings.indexing_enabled:
            return tools
        virtual = index_tools(settings.search_tool_name, settings.read_tool_name)
        return [*(strip_output_schema(tool) for tool in tools), *virtual]

    def sees_upstream(self, name: str) -> bool:
        return self._catalog is not None and (
            name in self._catalog.upstreams or name in self._catalog.unavailable
        )

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None, ctx: Any
    ) -> types.CallToolResult:
        """Call a tool through its upstream; upstream failures become tool errors.

        Raises:
            MCPError: the tool does not exist for this client (same message either way).
        """
        self.touch()
        settings = self.identity.settings
        if settings.indexing_enabled and name in (
            settings.search_tool_name,
            settings.read_tool_name,
        ):
            self.stats.calls[name] += 1
            search = name == settings.search_tool_name
            return await run_index_tool(self.store, search=search, arguments=arguments)
        route = (await self.catalog()).route_tool(name)
        if route is None:
            raise MCPError(code=types.INVALID_PARAMS, message=UNKNOWN_TOOL.format(name=name))
        upstream, tool = route
        self.stats.calls[name] += 1
        try:
            connection = await self.gateway.connection(upstream)
            with self.gateway.callers.calling(upstream, ctx):
                result = await connection.call_tool(
                    tool, arguments, progress_callback=ctx.session.report_progress
                )
        except UpstreamError as error:
            self.stats.errors += 1
            return tool_error(f"Upstream {upstream!r} failed: {error}")
        self.stats.bytes_from_upstreams += result_size(result)
        if result.is_error:
            self.stats.errors += 1
        elif settings.indexing_enabled:
            result, _ = await compress_result(
                result,
                ResponseCompressor(self.store),
                tool_name=name,
                threshold=settings.response_threshold,
                search_tool=settings.search_tool_name,
                read_tool=settings.read_tool_name,
            )
        self.stats.bytes_to_client += result_size(result)
        self.gateway.recorder.changed(self)
        return result

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        self.touch()
        route = (await self.catalog()).route_resource(uri)
        if route is None:
            raise MCPError(code=types.RESOURCE_NOT_FOUND, message=f"Unknown resource: {uri}")
        upstream, original = route
        result = await self._upstream_call(upstream, lambda c: c.read_resource(original))
        contents = [c.model_copy(update={"uri": uri}) for c in result.contents]
        return result.model_copy(update={"contents": contents})

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None
    ) -> types.GetPromptResult:
        self.touch()
        route = (await self.catalog()).route_prompt(name)
        if route is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {name}")
        upstream, prompt = route
        return await self._upstream_call(upstream, lambda c: c.get_prompt(prompt, arguments))

    async def complete(self, params: types.CompleteRequestParams) -> types.CompleteResult:
        self.touch()
        catalog = await self.catalog()
        ref = params.ref
        if isinstance(ref, types.PromptReference):
            route = catalog.route_prompt(ref.name)
            new_ref = ref.model_copy(update={"name": route[1]}) if route else None
        else:
            route = catalog.route_template(ref.uri)
            new_ref = ref.model_copy(update={"uri": route[1]}) if route else None
        if route is None or new_ref is None:
            return types.CompleteResult(completion=types.Completion(values=[]))
        upstream = route[0]
        return await self._upstream_call(
            upstream,
            lambda c: c.complete(
                new_ref,
                {"name": params.argument.name, "value": params.argument.value},
                params.context.arguments if params.context else None,
            ),
        )

    async def _upstream_call(self, upstream: str, call):
        try:
            return await call(await self.gateway.connection(upstream))
        except UpstreamError as error:
            self.stats.errors += 1
            raise MCPError(
                code=types.INTERNAL_ERROR, message=f"Upstream {upstream!r} failed: {error}"
            ) from None

    async def notify_list_changed(self, kind: str) -> None:
        """Tell the client its tools/resources/prompts list changed (handshake era)."""
        if self.connection is not None:
            await self.connection.notify(f"notifications/{kind}/list_changed", None)

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            await self.gateway.session_ended(self)
            if self._store is not None:
                self._store.close()
