"""Requests an upstream sends back while serving a call: sampling, elicitation, roots.

Each goes to the client session whose call is in flight to that upstream: on its stream in
the handshake era, as an `input_required` round in the 2026-07-28 era (see
`gateway.sessions.input_rounds`). Log messages from the upstream go to the 2026-07-28 calls in
flight to it, on their response streams (handshake-era sessions get them on their
session, from `gateway.runtime`). When no
call (or calls from several sessions) are in flight, or the client cannot serve the
request, the upstream gets a clear MCP error at once instead of waiting forever; except
`roots/list` asked outside a client's call (some servers ask before listing their tools),
which is answered with no roots.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.seams.mcp_sdk_seam import connection_of
from gateway.sessions.input_rounds import ParkedCall
from gateway.upstreams import UpstreamHooks


def refusal(message: str) -> types.ErrorData:
    return types.ErrorData(code=types.INVALID_REQUEST, message=message)


async def send_to_client[T](ctx: Any, request: Any, result_type: type[T]) -> T | types.ErrorData:
    """Ask the client behind a call: on its stream in the handshake era (`ctx`, an SDK request
    context), at the end of the call's round in the 2026-07-28 era (`ctx`, a `ParkedCall`)."""
    if isinstance(ctx, ParkedCall):
        return result_type.model_validate(await ctx.ask(request), by_name=False)
    try:
        return await ctx.session.send_request(
            request,
            result_type,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except MCPError as error:
        return error.error


async def ask_caller[T](
    ctx: Any,
    request: types.InputRequest,
    result_type: type[T],
    capability: types.ClientCapabilities,
    feature: str,
) -> T | types.ErrorData:
    """Ask the client whose call `ctx` is (an SDK request context, or a parked 2026-07-28
    call); an error when it does not support `feature` or answers with one."""
    if not ctx.session.check_client_capability(capability):
        return refusal(f"the client connected to LocalRouter does not support {feature}")
    return await send_to_client(ctx, request, result_type)


class CallerRegistry:
    """Which client requests are waiting on which upstream right now."""

    def __init__(self) -> None:
        self._waiting: dict[str, list[Any]] = defaultdict(list)

    @contextmanager
    def calling(self, upstream: str, ctx: Any) -> Iterator[None]:
        """Mark `ctx` (an SDK request context) as waiting on `upstream`."""
        self._waiting[upstream].append(ctx)
        try:
            yield
        finally:
            self._waiting[upstream].remove(ctx)

    def caller(self, upstream: str) -> Any | types.ErrorData:
        """The one client request context an upstream's request belongs to, or why not."""
        waiting = self._waiting.get(upstream) or []
        connections = {id(connection_of(ctx)) for ctx in waiting}
        if not waiting:
            return refusal(f"no client call to {upstream!r} is in progress to ask")
        if len(connections) > 1:
            return refusal(
                f"calls from {len(connections)} client sessions are in progress to {upstream!r}; "
                "LocalRouter cannot tell which one this request belongs to"
            )
        return waiting[-1]

    async def _forward(self, upstream, request, result_type, capability, feature: str):
        ctx = self.caller(upstream)
        if isinstance(ctx, types.ErrorData):
            return ctx
        return await ask_caller(ctx, request, result_type, capability, feature)

    async def sampling(self, upstream: str, params: types.CreateMessageRequestParams):
        return await self._forward(
            upstream,
            types.CreateMessageRequest(params=params),
            types.CreateMessageResult,
            types.ClientCapabilities(sampling=types.SamplingCapability()),
            "sampling",
        )

    async def elicitation(self, upstream: str, params: types.ElicitRequestParams):
        return await self._forward(
            upstream,
            types.ElicitRequest(params=params),
            types.ElicitResult,
            types.ClientCapabilities(elicitation=types.ElicitationCapability()),
            "elicitation",
        )

    async def list_roots(self, upstream: str):
        if isinstance(self.caller(upstream), types.ErrorData):
            # Asked outside a call (e.g. before listing its tools): no client roots apply.
            return types.ListRootsResult(roots=[])
        return await self._forward(
            upstream,
            types.ListRootsRequest(),
            types.ListRootsResult,
            types.ClientCapabilities(roots=types.RootsCapability()),
            "roots",
        )

    async def log_to_calls(
        self, upstream: str, message: types.LoggingMessageNotificationParams
    ) -> None:
        """Pass an upstream's log message to the 2026-07-28 calls in flight to it, each on
        its response stream if that request opted in at the message's level."""
        for ctx in list(self._waiting.get(upstream, ())):
            if ctx.session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                continue
            with warnings.catch_warnings():  # the era deprecates logging; it still carries it
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                sending = ctx.session.send_log_message(
                    message.level,
                    message.data,
                    message.logger,
                    related_request_id=ctx.request_id,
                )
            await sending

    def hooks(self, **others: Any) -> UpstreamHooks:
        """Upstream hooks that route these requests, plus the given ones."""
        return UpstreamHooks(
            sampling=self.sampling,
            elicitation=self.elicitation,
            list_roots=self.list_roots,
            **others,
        )
