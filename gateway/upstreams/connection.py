"""`UpstreamConnection`: a lazily started, shared, self-healing connection to one upstream."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp import Client
from mcp.shared.dispatcher import ProgressFnT

from gateway.upstreams.backoff import Backoff
from gateway.upstreams.bearer import BearerSource
from gateway.upstreams.errors import UpstreamError
from gateway.upstreams.failures import call_error
from gateway.upstreams.hooks import UpstreamHooks
from gateway.upstreams.spec import UpstreamSpec
from gateway.upstreams.upstream_session import UpstreamSession

logger = logging.getLogger(__name__)

T = TypeVar("T")
PAGE_LIMIT = 100
"""Most pages read for one listing: a paginator that never ends cannot hang the gateway."""
TIMEOUT_GRACE = 1.0
"""Slack past a request's timeout before the outer guard fires (the SDK's own fires first)."""


class UpstreamConnection:
    """One upstream: started on first use, shared by concurrent callers, restarted after a crash.

    Every failure raises `UpstreamError`. Calls run concurrently over one session; none
    holds a lock while waiting for the upstream.
    """

    def __init__(
        self,
        spec: UpstreamSpec,
        hooks: UpstreamHooks | None = None,
        backoff: Backoff | None = None,
        *,
        bearer: BearerSource | None = None,
    ):
        self.spec = spec
        self.hooks = hooks or UpstreamHooks()
        self.backoff = backoff or Backoff()
        self.bearer = bearer
        self._live: UpstreamSession | None = None
        self._last_failure: UpstreamError | None = None
        self._start_lock = anyio.Lock()
        self._closed = False
        self._prefer_modern = False

    def __repr__(self) -> str:
        return f"UpstreamConnection({self.spec.name!r}, state={self.state!r})"

    @property
    def state(self) -> str:
        """`idle`, `running`, `broken` (restarts on next use) or `closed`."""
        if self._closed:
            return "closed"
        if self._live is None:
            return "idle"
        return "running" if self._live.usable else "broken"

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version of the running session, if any."""
        client = self._client_or_none()
        return client.protocol_version if client else None

    @property
    def server_info(self) -> types.Implementation | None:
        """The upstream's name and version, once started."""
        client = self._client_or_none()
        return client.server_info if client else None

    @property
    def capabilities(self) -> types.ServerCapabilities | None:
        """The upstream's capabilities, once started."""
        client = self._client_or_none()
        return client.server_capabilities if client else None

    @property
    def instructions(self) -> str | None:
        """The upstream's instructions text, once started."""
        client = self._client_or_none()
        return client.instructions if client else None

    async def start(self) -> None:
        """Start the session now instead of on first use.

        Raises:
            UpstreamError: The upstream could not be started (or is backing off).
        """
        await self._session()

    async def list_tools(self) -> list[types.Tool]:
        """All tools of the upstream, every page."""
        return await self._all_pages(lambda c, cursor: c.list_tools(cursor=cursor), "tools")

    async def list_resources(self) -> list[types.Resource]:
        """All resources of the upstream, every page."""
        return await self._all_pages(lambda c, cursor: c.list_resources(cursor=cursor), "resources")

    async def list_resource_templates(self) -> list[types.ResourceTemplate]:
        """All resource templates of the upstream, every page."""
        return await self._all_pages(
            lambda c, cursor: c.list_resource_templates(cursor=cursor), "resource_templates"
        )

    async def list_prompts(self) -> list[types.Prompt]:
        """All prompts of the upstream, every page."""
        return await self._all_pages(lambda c, cursor: c.list_prompts(cursor=cursor), "prompts")

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        progress_callback: ProgressFnT | None = None,
        meta: types.RequestParamsMeta | None = None,
        timeout: float | None = None,
    ) -> types.CallToolResult:
        """Call a tool; a tool-level failure is a result with `is_error`, not an exception.

        Raises:
            UpstreamError: The call failed, timed out, or the upstream is unreachable.
        """
        limit = timeout if timeout is not None else self.spec.timeout
        return await self._request(
            lambda c: c.call_tool(
                name,
                arguments,
                read_timeout_seconds=limit,
                progress_callback=progress_callback,
                meta=meta,
            ),
            limit,
        )

    async def read_resource(
        self, uri: str, meta: types.RequestParamsMeta | None = None
    ) -> types.ReadResourceResult:
        """Read one resource.

        Raises:
            UpstreamError: The read failed or the upstream is unreachable.
        """
        return await self._request(lambda c: c.read_resource(uri, meta=meta))

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None
    ) -> types.GetPromptResult:
        """Render one prompt.

        Raises:
            UpstreamError: The request failed or the upstream is unreachable.
        """
        return await self._request(lambda c: c.get_prompt(name, arguments))

    async def complete(
        self,
        ref: types.ResourceTemplateReference | types.PromptReference,
        argument: dict[str, str],
        context_arguments: dict[str, str] | None = None,
    ) -> types.CompleteResult:
        """Ask for argument completions.

        Raises:
            UpstreamError: The request failed or the upstream is unreachable.
        """
        return await self._request(lambda c: c.complete(ref, argument, context_arguments))

    async def ping(self) -> None:
        """Check the upstream answers (`ping`, or `server/discover` at 2026-07-28).

        Any answer counts, an error too: some servers answer `ping` with `Method not found`.

        Raises:
            UpstreamError: It does not answer.
        """
        live = await self._session()
        try:
            if live.modern:
                await self._request(lambda c: c.session.discover(), live=live)
            else:
                await self._request(lambda c: c.session.send_ping(), live=live)
        except UpstreamError as error:
            if error.kind != "rejected":
                raise

    async def aclose(self) -> None:
        """Stop the session and its process; later calls raise `UpstreamError` (closed)."""
        self._closed = True
        live, self._live = self._live, None
        if live is not None:
            await live.aclose()

    async def _all_pages(
        self, fetch: Callable[[Client, str | None], Awaitable[Any]], field: str
    ) -> list[Any]:
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(PAGE_LIMIT):
            page = await self._request(lambda c, cursor=cursor: fetch(c, cursor))
            items.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor:
                return items
        logger.warning(
            "upstream %r: stopped reading %s after %d pages", self.spec.name, field, PAGE_LIMIT
        )
        return items

    async def _request(
        self,
        send: Callable[[Client], Awaitable[T]],
        timeout: float | None = None,
        *,
        live: UpstreamSession | None = None,
    ) -> T:
        live = live or await self._session()
        assert live.client is not None
        limit = (timeout if timeout is not None else self.spec.timeout) + TIMEOUT_GRACE
        try:
            with anyio.fail_after(limit):
                result = await send(live.client)
        except Exception as exc:  # every failure is translated; nothing raw leaves this class
            error = call_error(self.spec, exc, session_broken=live.broken)
            if error.kind == "crashed" and live.close_reason is not None:
                # The transport said why it ended (and logged it): that is the call's error.
                error = live.close_reason
                self._note_crash(live, error, log=False)
            elif error.kind == "crashed":
                self._note_crash(live, error)
            raise error from None
        self.backoff.record_success()
        return result

    async def _session(self) -> UpstreamSession:
        """The running session, starting or restarting it if needed."""
        live = self._live
        if live is not None and live.usable:
            return live
        async with self._start_lock:
            if self._closed:
                raise UpstreamError(self.spec.name, "closed", "the connection is closed")
            live = self._live
            if live is not None and live.usable:
                return live
            if live is not None:
                reason = live.close_reason  # already logged by the transport when set
                self._note_crash(live, reason, log=reason is None)
            wait = self.backoff.remaining()
            if wait > 0:
                reason = (
                    f" (last error: {self._last_failure.message})" if self._last_failure else ""
                )
                raise UpstreamError(
                    self.spec.name, "unavailable", f"restarting in {wait:.1f}s{reason}"
                )
            return await self._start()

    async def _start(self) -> UpstreamSession:
        live = UpstreamSession(
            self.spec, self.hooks, prefer_modern=self._prefer_modern, bearer=self.bearer
        )
        self._live = live
        live.start()
        await live.ready.wait()
        if not live.usable:
            self._live = None
            await live.aclose()
            failure = live.failure or UpstreamError(
                self.spec.name, "crashed", "the upstream exited while starting"
            )
            self._last_failure = failure
            self.backoff.record_failure()
            raise failure
        self._prefer_modern = live.prefer_modern
        return live

    def _note_crash(
        self, live: UpstreamSession, error: UpstreamError | None, *, log: bool = True
    ) -> None:
        """Retire a broken session once; its owner tears it down in the background."""
        if self._live is not live:
            return
        self._live = None
        live.mark_broken()
        self._last_failure = error or UpstreamError(
            self.spec.name, "crashed", "the connection to the upstream was lost"
        )
        self.backoff.record_failure()
        if log:
            logger.warning(
                "upstream %r: %s; it restarts on next use",
                self.spec.name,
                self._last_failure.message,
            )

    def _client_or_none(self) -> Client | None:
        live = self._live
        return live.client if live is not None and live.usable else None
