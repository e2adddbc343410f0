"""A gateway session: one client's live view of its upstreams, and what it did.

One per handshake-era MCP session; one per client for 2026-07-28 clients, who have
no sessions. The SDK owns the protocol; this object owns routing and statistics.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

import mcp_types as types
from mcp.server.connection import Connection
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from clients.tool_policy import Decision
from gateway.catalog.merged import MergedCatalog
from gateway.catalog.planner import CatalogPlanner
from gateway.catalog.view import CatalogView
from gateway.guardrails.ask import confirmed
from gateway.operations.call_monitor import CallFacts, CallKind, CallMonitor, CallRefused
from gateway.operations.metrics import families as metrics
from gateway.sessions.connect_prompt import connect_through_client
from gateway.sessions.identity import ClientIdentity
from gateway.sessions.index import SessionIndex
from gateway.sessions.input_rounds import InputRounds
from gateway.sessions.list_change_bus import ListChangeBus
from gateway.sessions.response_masking import ResponseMasking
from gateway.sessions.reverse_requests import CallerRegistry
from gateway.upstream_config.enabled import EnabledUpstreams
from gateway.upstream_config.grants import GrantRequired
from gateway.upstreams import UpstreamConnection, UpstreamError
from indexing.api.result_size import result_size
from indexing.api.tool_results import text_result

logger = logging.getLogger(__name__)
T = TypeVar("T")

UNKNOWN_TOOL = "Unknown tool: {name}"
# Resource not found: -32002 up to protocol 2025-11-25; 2026-07-28 retired it for
# Invalid Params (SEP-2164). mcp_types names neither.
RESOURCE_NOT_FOUND = -32002


def expiry_check_seconds(idle_timeout: float) -> float:
    """How often sessions without a connection are checked for having gone idle."""
    return min(30.0, idle_timeout / 2)


@dataclass
class SessionStats:
    """Counters kept in memory and written to the session record off the hot path."""

    calls: Counter = field(default_factory=Counter)  # "<upstream>__<tool>" -> count
    errors: int = 0
    bytes_from_upstreams: int = 0
    bytes_to_client: int = 0
    guardrails: Counter = field(default_factory=Counter)  # "masked:github token" -> count

    @property
    def call_count(self) -> int:
        return sum(self.calls.values())


class Recorder(Protocol):
    """Where a session says its record needs writing (`records.SessionRecorder`, which
    reads the session: this module does not import it)."""

    def changed(self, session: GatewaySession, *, ended: bool = False) -> None: ...


@dataclass(frozen=True)
class SessionServices:
    """What a gateway session uses of its worker: all of it, and nothing else."""

    catalogs: CatalogPlanner
    upstreams: EnabledUpstreams
    callers: CallerRegistry
    recorder: Recorder
    list_changes: ListChangeBus
    monitor: CallMonitor = field(default_factory=CallMonitor)


class GatewaySession:
    """Routes one client's requests to the upstreams it may use."""

    def __init__(
        self,
        services: SessionServices,
        identity: ClientIdentity,
        *,
        key: str,
        protocol_version: str,
        on_closed: Callable[[GatewaySession], Awaitable[None]],
    ):
        self.services = services
        self._on_closed = on_closed
        self.identity = identity
        self.key = key
        self.record_id = uuid.uuid4().hex
        self.protocol_version = protocol_version
        self.client_name = ""
        self.client_version = ""
        self.started = time.time()
        self.last_activity = time.monotonic()
        self.stats = SessionStats()
        self.in_flight: Counter[str] = Counter()  # upstream -> calls waiting for it now
        self.closed = False
        self.index = SessionIndex(identity.settings)
        self.masking = ResponseMasking(bool(identity.settings.mask_secrets), self.stats.guardrails)
        self.connection: Connection | None = None  # handshake-era: for change notifications
        self.rounds = InputRounds()  # 2026-07-28 calls waiting for the client's input
        self._view: CatalogView | None = None
        self._view_version = -1

    @property
    def current_view(self) -> CatalogView | None:
        """The catalog view as last computed (None before the first request)."""
        return self._view

    def touch(self) -> None:
        """Note a request: keeps the session from expiring and its record fresh."""
        self.last_activity = time.monotonic()
        if not self.closed:
            self.services.recorder.changed(self)

    async def view(self) -> CatalogView:
        """The catalog as this client sees it, recomputed when an upstream listing changed."""
        catalogs = self.services.catalogs
        current = await catalogs.current_version()  # notices upstreams added or removed
        if self._view is None or self._view_version != current:
            planned = await catalogs.planned(self.identity)
            view = CatalogView(planned.catalog, planned.plan)
            metrics.count_catalog_planned(planned.plan)
            if self._view is not None:
                view.carry_over(self._view)
            self.index.index_catalog(view, planned.template)
            held = sum(len(items) for items in planned.catalog.held.values())
            if held > self.stats.guardrails["held"]:  # the most held at once in this session
                self.stats.guardrails["held"] = held
            self._view, self._view_version = view, planned.version
        return self._view

    async def catalog(self) -> MergedCatalog:
        """Everything this client may use (deferred or not), for routing."""
        return (await self.view()).catalog

    def indexed_labels(self) -> list:
        """Statistics of the responses this session indexed."""
        return self.index.labels_stats()

    async def visible_tools(self) -> list[types.Tool]:
        """The tools this client sees in `tools/list`, with IndexSearch/IndexRead when indexing."""
        return [*(await self.view()).tools(), *self.index.tools()]

    def listed_input_schema(self, name: str) -> dict[str, Any] | None:
        """The input schema of a tool as this client's catalog last listed it (no recomputing,
        no awaiting); None for a tool it does not see, or before its first request."""
        view = self._view
        if view is None:
            return None
        tools = self.index.tools() if self.index.is_index_tool(name) else view.tools()
        return next((tool.input_schema for tool in tools if tool.name == name), None)

    def sees_upstream(self, name: str) -> bool:
        view = self._view
        return view is not None and (
            name in view.catalog.upstreams or name in view.catalog.unavailable
        )

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Call a tool through its upstream; upstream failures and refusals become tool errors.

        In the 2026-07-28 era a round may end with `input_required` when the upstream asks
        the client something (see `gateway.sessions.input_rounds`).

        Raises:
            MCPError: the tool does not exist for this client (same message either way).
        """
        name, arguments = params.name, params.arguments
        self.touch()
        view = await self.view()
        if self.index.is_index_tool(name):
            return await self._call_index_tool(name, arguments, view)
        route = view.catalog.route_tool(name)
        if route is None:
            await self._unknown("tool", name)
            raise MCPError(code=types.INVALID_PARAMS, message=UNKNOWN_TOOL.format(name=name))
        upstream, tool = route
        if params.request_state is None:  # a call's later rounds count as the same call
            self.stats.calls[name] += 1
        try:
            async with self.services.monitor.call(
                self._facts("tool", upstream, tool, arguments)
            ) as call:
                result = await self._call_upstream_tool(ctx, params, upstream, tool, call)
        except CallRefused as refusal:
            self.stats.errors += 1
            self.services.recorder.changed(self)
            return text_result(refusal.message, error=True)
        self.services.recorder.changed(self)
        return result

    async def _call_upstream_tool(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        upstream: str,
        tool: str,
        call: CallFacts,
    ) -> types.CallToolResult | types.InputRequiredResult:
        self.in_flight[upstream] += 1
        try:
            asks = self.identity.policy.decision(params.name) is Decision.ASK

            async def upstream_call(caller: Any) -> types.CallToolResult:
                if asks:
                    counts = self.stats.guardrails
                    refused = await confirmed(caller, params.name, params.arguments, call, counts)
                    if refused is not None:
                        return refused
                connection = await self._connection_asking(caller, upstream)
                with self.services.callers.calling(connection.spec.caller_route, caller):
                    return await connection.call_tool(
                        tool, params.arguments, progress_callback=caller.session.report_progress
                    )

            if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
                result = await self.rounds.call(ctx, params, upstream_call)
                if isinstance(result, types.InputRequiredResult):
                    return result
            else:
                result = await upstream_call(ctx)
        except UpstreamError as error:
            self.stats.errors += 1
            call.fail("error", error.kind)
            answer = text_result(error.client_message(), error=True)
            call.bytes_delivered = result_size(answer)
            return answer
        finally:
            self.in_flight[upstream] -= 1
        received = result
        size = result_size(received)
        self.stats.bytes_from_upstreams += size
        call.bytes_received = size
        result = await self.masking.mask(result, call)  # before the index or the client sees it
        if result.is_error:
            self.stats.errors += 1
            call.fail("error", "tool_error")
        else:
            result = await self.index.compress(params.name, result)
        # A result passed through unchanged is not serialised a second time to count it.
        delivered = size if result is received else result_size(result)
        self.stats.bytes_to_client += delivered
        call.bytes_delivered = delivered
        return result

    async def _connection_asking(self, caller: Any, upstream: str) -> UpstreamConnection:
        """The connection of this client to `upstream`; when it lacks a grant, the client
        is asked to connect it (where it can be: `connect_prompt.py`).

        Raises:
            UpstreamError: no connection (`GrantRequired` when the grant is missing).
        """
        connect = partial(self.services.upstreams.connection, upstream, self.identity.owner_id)
        try:
            return await connect()
        except GrantRequired as required:
            return await connect_through_client(caller, required, connect)

    async def _call_index_tool(
        self, name: str, arguments: dict[str, Any] | None, view: CatalogView
    ) -> types.CallToolResult:
        """IndexSearch or IndexRead: what it returns is delivered to the client (reports count
        it against the bytes saved); bad arguments count as errors."""
        self.stats.calls[name] += 1
        try:
            async with self.services.monitor.call(
                self._facts("index", "", name, arguments)
            ) as call:
                result, activation = await self.index.call(name, arguments, view)
                call.bytes_delivered = result_size(result)
                self.stats.bytes_to_client += call.bytes_delivered
                if result.is_error:
                    self.stats.errors += 1
                    call.fail("error", "bad_arguments")
        except CallRefused as refusal:
            self.stats.errors += 1
            self.services.recorder.changed(self)
            return text_result(refusal.message, error=True)
        for kind in activation.kinds():
            await self.notify_list_changed(kind)
        self.services.recorder.changed(self)
        return result

    async def _unknown(self, kind: CallKind, name: str) -> None:
        """Count and report a call of something this client does not have (no upstream)."""
        self.stats.errors += 1
        self.services.recorder.changed(self)
        facts = self._facts(kind, "", name)
        facts.fail("unknown", f"unknown_{kind}")
        if kind == "tool" and self.identity.policy.decision(name) is Decision.DENY:
            facts.guardrails["denied"] += 1  # answered as unknown all the same: nothing shown
            self.stats.guardrails["denied"] += 1
        with contextlib.suppress(CallRefused):  # refused or unknown: the answer is the same
            async with self.services.monitor.call(facts):
                pass

    def _facts(
        self, kind: CallKind, upstream: str, name: str, arguments: dict[str, Any] | None = None
    ) -> CallFacts:
        return CallFacts(
            kind=kind,
            client_id=self.identity.id,
            client_name=self.identity.name,
            session=self.record_id,
            upstream=upstream,
            name=name,
            arguments=arguments,
        )

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        self.touch()
        route = (await self.catalog()).route_resource(uri)
        if route is None:
            await self._unknown("resource", uri)
            raise MCPError(
                code=self._resource_not_found_code(),
                message=f"Resource not found: {uri}",
                data={"uri": uri},
            )
        upstream, original = route
        facts = self._facts("resource", upstream, original)

        async def read(connection: Any) -> types.ReadResourceResult:
            return self.masking.mask_resource(await connection.read_resource(original), facts)

        result = await self._upstream_call(facts, read)
        contents = [c.model_copy(update={"uri": uri}) for c in result.contents]
        return result.model_copy(update={"contents": contents})

    def _resource_not_found_code(self) -> int:
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return types.INVALID_PARAMS
        return RESOURCE_NOT_FOUND

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None
    ) -> types.GetPromptResult:
        self.touch()
        route = (await self.catalog()).route_prompt(name)
        if route is None:
            await self._unknown("prompt", name)
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {name}")
        upstream, prompt = route
        return await self._upstream_call(
            self._facts("prompt", upstream, prompt, arguments),
            lambda c: c.get_prompt(prompt, arguments),
        )

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
        upstream, target = route
        return await self._upstream_call(
            self._facts("completion", upstream, target),
            lambda c: c.complete(
                new_ref,
                {"name": params.argument.name, "value": params.argument.value},
                params.context.arguments if params.context else None,
            ),
        )

    async def _upstream_call(self, facts: CallFacts, send: Callable[[Any], Awaitable[T]]) -> T:
        """A resource read, prompt or completion through the monitor; failures are MCPErrors."""
        try:
            async with self.services.monitor.call(facts) as call:
                try:
                    connection = await self.services.upstreams.connection(
                        facts.upstream, self.identity.owner_id
                    )
                    return await send(connection)
                except UpstreamError as error:
                    self.stats.errors += 1
                    call.fail("error", error.kind)
                    raise MCPError.from_error_data(error.to_error_data()) from None
        except CallRefused as refusal:
            self.stats.errors += 1
            raise MCPError(code=types.INVALID_REQUEST, message=refusal.message) from None

    async def notify_list_changed(self, kind: str) -> None:
        """Tell the client its tools/resources/prompts list changed."""
        if self.connection is not None:
            await self.connection.notify(f"notifications/{kind}/list_changed", None)
        else:
            await self.services.list_changes.publish(kind)

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            self.rounds.aclose()
            try:
                await self.index.aclose()  # first: the record counts every indexed response
            finally:
                await self._on_closed(self)
