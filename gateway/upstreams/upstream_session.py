"""`UpstreamSession`: one started upstream session, owned by a single long-lived task.

SDK client contexts (anyio task groups and cancel scopes) must be entered and exited in
the same task, so one owner task enters transport + session, signals readiness, and waits
until asked to stop or until the transport closes; callers use the session from their own
tasks, concurrently.
"""

from __future__ import annotations

import asyncio
import logging
import math
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext, IncomingMessage
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.upstreams.bearer import BearerSource
from gateway.upstreams.errors import UpstreamError, leaf_exceptions, redact
from gateway.upstreams.failures import startup_error
from gateway.upstreams.hooks import ListKind, UpstreamHooks
from gateway.upstreams.spec import UpstreamSpec
from gateway.upstreams.stdout_noise import StdoutNoise
from gateway.upstreams.transport import open_transport, watch_closed

logger = logging.getLogger(__name__)

CLIENT_INFO = types.Implementation(name="localrouter", version="0.1.0")
SHUTDOWN_TIMEOUT = 10.0
"""Bound on one session's teardown (the SDK's stdio shutdown escalates within ~6 s)."""

_LIST_CHANGED: dict[type[Any], ListKind] = {
    types.ToolListChangedNotification: "tools",
    types.ResourceListChangedNotification: "resources",
    types.PromptListChangedNotification: "prompts",
}


@dataclass(eq=False)
class UpstreamSession:
    """One started (or starting) upstream session and the task that owns it."""

    spec: UpstreamSpec
    hooks: UpstreamHooks
    prefer_modern: bool = False
    bearer: BearerSource | None = None
    """Where an HTTP upstream's bearer token comes from, when it carries a grant."""
    client: Client | None = None
    failure: UpstreamError | None = None
    broken: bool = False
    close_reason: UpstreamError | None = None
    """Why the transport ended, when it said (a message over the size limit)."""
    ready: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    _stop: anyio.Event = field(default_factory=anyio.Event)
    _scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    _noise: StdoutNoise = field(init=False)
    _garbage_at_startup: bool = False
    _closing: bool = False
    _attempt: int = 0
    _task: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self._noise = StdoutNoise(self.spec)

    def start(self) -> None:
        """Spawn the owner task; it is detached from the caller, which may be short-lived."""
        # Created here, not in the owner, so an aclose() before the owner runs still cancels it.
        self._scope = anyio.CancelScope(deadline=anyio.current_time() + self.spec.start_limit)
        self._task = asyncio.get_running_loop().create_task(
            self._own(), name=f"upstream:{self.spec.name}"
        )

    @property
    def usable(self) -> bool:
        """Whether calls may be sent on this session."""
        return self.client is not None and not self.broken and self.failure is None

    @property
    def modern(self) -> bool:
        """Whether the session speaks a 2026-07-28+ protocol version."""
        return self.client is not None and self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    def mark_broken(self) -> None:
        """Stop using this session and let the owner tear it down."""
        self.broken = True
        self._stop.set()

    async def aclose(self) -> None:
        """Ask the owner to tear down, and wait until it has (bounded, shielded)."""
        self._closing = True
        self._stop.set()
        if not self.ready.is_set():
            self._scope.cancel()
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_TIMEOUT):
            await self.done.wait()

    async def _own(self) -> None:
        # One scope around every context: its deadline bounds the start, and cancelling it
        # (garbage on stdout, close while starting) unwinds the contexts in LIFO order.
        try:
            with self._scope:
                async with AsyncExitStack() as stack:
                    self.client = await self._connect(stack)
                    self.prefer_modern = self.modern
                    await self._listen_for_changes(stack)
                    self._scope.deadline = math.inf
                    self.ready.set()
                    self._noise.report_banner()
                    await self._stop.wait()
            if not self.ready.is_set():
                self.failure = self._interrupted_start()
        except Exception as exc:  # boundary: a transport that blows up must not kill the loop
            if not self.ready.is_set():
                self.failure = self.close_reason or startup_error(self.spec, exc)
            else:
                logger.warning(
                    "upstream %r: session ended with an error: %s",
                    self.spec.name,
                    type(exc).__name__,
                )
        finally:
            self.broken = True
            self.ready.set()
            self.done.set()

    async def _connect(self, stack: AsyncExitStack) -> Client:
        """Enter transport + session; fall back to 2026-07-28 if the handshake is refused."""
        if not self.prefer_modern:
            try:
                return await stack.enter_async_context(self._make_client("legacy"))
            except Exception as exc:
                if not _refuses_handshake(exc):
                    raise
        return await stack.enter_async_context(self._make_client("auto"))

    def _interrupted_start(self) -> UpstreamError:
        """Why the start was cancelled without an exception of its own."""
        if self._garbage_at_startup:
            return self._noise.failure()
        if self._closing:
            return UpstreamError(
                self.spec.name, "closed", "the connection was closed while starting"
            )
        return UpstreamError(
            self.spec.name,
            "timeout",
            f"the upstream did not start within {self.spec.start_limit:g}s",
        )

    def _make_client(self, mode: str) -> Client:
        hooks = self.hooks
        self._attempt += 1
        attempt = self._attempt

        def closed(reason: UpstreamError | None) -> None:
            if reason is not None and attempt == self._attempt:
                self.close_reason = reason
            # A refused legacy attempt closes too; only a published session counts.
            if attempt == self._attempt and self.client is not None:
                self.mark_broken()

        return Client(
            watch_closed(open_transport(self.spec, self.bearer), closed),
            mode=mode,
            cache=None,
            read_timeout_seconds=self.spec.timeout,
            client_info=CLIENT_INFO,
            message_handler=self._on_message,
            logging_callback=self._on_log if hooks.on_log else None,
            log_level=hooks.log_level if hooks.on_log else None,
            sampling_callback=self._on_sampling if hooks.sampling else None,
            elicitation_callback=self._on_elicitation if hooks.elicitation else None,
            list_roots_callback=self._on_list_roots if hooks.list_roots else None,
        )

    async def _listen_for_changes(self, stack: AsyncExitStack) -> None:
        """2026-07-28 upstreams send list_changed only on a `subscriptions/listen` stream."""
        if not self.modern or self.client is None:
            return
        caps = self.client.server_capabilities
        wanted = {
            "tools_list_changed": bool(caps.tools and caps.tools.list_changed),
            "prompts_list_changed": bool(caps.prompts and caps.prompts.list_changed),
            "resources_list_changed": bool(caps.resources and caps.resources.list_changed),
        }
        if not any(wanted.values()) or self.hooks.on_list_changed is None:
            return
        try:
            subscription = await stack.enter_async_context(self.client.listen(**wanted))
        except (MCPError, SubscriptionLost) as exc:
            reason = redact(str(exc), self.spec.secret_values())
            logger.warning(
                "upstream %r: could not subscribe to changes: %s", self.spec.name, reason
            )
            return
        tg = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tg.cancel_scope.cancel)

        async def drain() -> None:
            # Events are also teed to the message handler, which fires the hooks.
            try:
                async for _event in subscription:
                    pass
            except SubscriptionLost:
                logger.info("upstream %r: change subscription lost", self.spec.name)

        tg.start_soon(drain)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            if self._noise.add(message, started=self.ready.is_set()):
                # More than a banner before the handshake: fail fast rather than time out.
                self._garbage_at_startup = True
                self._scope.cancel()
            return
        kind = _LIST_CHANGED.get(type(message))
        if kind is not None and self.hooks.on_list_changed is not None:
            await _contained(self.spec.name, self.hooks.on_list_changed(self.spec.name, kind))
        elif (
            isinstance(message, types.ResourceUpdatedNotification)
            and self.hooks.on_resource_updated
        ):
            await _contained(
                self.spec.name, self.hooks.on_resource_updated(self.spec.name, message.params.uri)
            )

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        assert self.hooks.on_log is not None
        await _contained(self.spec.name, self.hooks.on_log(self.spec.name, params))

    async def _on_sampling(
        self, _ctx: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData:
        assert self.hooks.sampling is not None
        return await self.hooks.sampling(self.spec.name, params)

    async def _on_elicitation(
        self, _ctx: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        assert self.hooks.elicitation is not None
        return await self.hooks.elicitation(self.spec.name, params)

    async def _on_list_roots(
        self, _ctx: ClientRequestContext
    ) -> types.ListRootsResult | types.ErrorData:
        assert self.hooks.list_roots is not None
        return await self.hooks.list_roots(self.spec.name)


async def _contained(upstream: str, hook_call: Any) -> None:
    """Run a gateway hook; its failure is logged, never fed back into the upstream session."""
    try:
        await hook_call
    except Exception:  # boundary: gateway hook code
        logger.exception("hook for upstream %r raised", upstream)


def _refuses_handshake(exc: BaseException) -> bool:
    return any(
        isinstance(leaf, MCPError) and leaf.code == UNSUPPORTED_PROTOCOL_VERSION
        for leaf in leaf_exceptions(exc)
    )
