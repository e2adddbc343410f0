"""Upstream requests during a 2026-07-28 call: the multi-round-trip flow (input_required).

In the 2026-07-28 era a server sends no request of its own to the client; a call that needs
the client's input (sampling, elicitation, roots) ends its round with an `input_required`
result listing those requests and an opaque `requestState`, and the client calls again
with the answers (`inputResponses`) and that state. The upstreams behind the gateway may
still be of the handshake era and ask mid-call, so the gateway parks the upstream call:

* round 1 starts the upstream call as a task and waits for it to finish or ask something;
* when it asks, the round answers `input_required` with the questions and a fresh token,
  and the task stays parked (the upstream waits for its answers) under that token;
* the next round (same client, the token as `requestState`) hands the answers to the
  parked call and waits again, as round 1 did.

A parked call the client does not resume within `PARK_SECONDS` is cancelled. Tokens are
random and only valid once, for the client that got them (each client's gateway session
has its own `InputRounds`), in the worker that parked the call: with several workers,
every 2026-07-28 request of a client is served by the worker that owns its session
(`gateway.http.exchange`), so the retry finds it.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

PARK_SECONDS = 300.0
EXPIRED = "Invalid or expired requestState"


class ParkedCall:
    """One upstream call of a 2026-07-28 client, with the requests its upstream asked."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx  # the SDK request context of the current round
        self.task: asyncio.Task | None = None
        self._asked: dict[str, types.InputRequest] = {}  # not yet sent to the client
        self._answers: dict[str, asyncio.Future] = {}
        self._news = asyncio.Event()
        self._expiry: asyncio.TimerHandle | None = None

    @property
    def session(self) -> Any:
        """The SDK server session of the current round (capabilities, progress)."""
        return self.ctx.session

    @property
    def request_id(self) -> Any:
        return self.ctx.request_id

    async def ask(self, request: types.InputRequest) -> dict[str, Any]:
        """Ask the client (at the end of the current round); its answer, as JSON."""
        key = f"q{len(self._answers) + 1}"
        answer: asyncio.Future = asyncio.get_running_loop().create_future()
        self._answers[key] = answer
        self._asked[key] = request
        self._news.set()
        return await answer

    def answer(self, responses: types.InputResponses | None) -> None:
        """Hand the client's answers to the questions they belong to."""
        for key, response in (responses or {}).items():
            pending = self._answers.get(key)
            if pending is not None and not pending.done():
                pending.set_result(response.model_dump(by_alias=True, exclude_none=True))

    async def next_round(self) -> dict[str, types.InputRequest] | None:
        """Wait until the upstream asks something (the questions, by key) or the call ends
        (None: `task` holds the result)."""
        assert self.task is not None
        while not self._asked and not self.task.done():
            self._news.clear()
            await self._news.wait()  # set by `ask` and when the task ends (`start`)
        asked, self._asked = self._asked, {}
        return asked or None

    def start(self, run: Callable[[ParkedCall], Awaitable[Any]]) -> None:
        """Run the upstream call (`run(self)`) in a task of its own."""
        self.task = asyncio.create_task(run(self))
        self.task.add_done_callback(lambda _task: self._news.set())

    def park(self, on_expiry: Callable[[], None]) -> None:
        self._expiry = asyncio.get_running_loop().call_later(PARK_SECONDS, on_expiry)

    def resume(self, ctx: Any) -> None:
        self.ctx = ctx
        if self._expiry is not None:
            self._expiry.cancel()

    def cancel(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
        if self.task is not None:
            self.task.cancel()


class InputRounds:
    """The parked calls of one client (its 2026-07-28 gateway session)."""

    def __init__(self) -> None:
        self._parked: dict[str, ParkedCall] = {}

    async def call(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        start: Callable[[ParkedCall], Awaitable[Any]],
    ) -> Any:
        """One round of a call: its result, or `input_required` with the upstream's questions.

        `start(call)` runs the upstream call (in round 1 only) with `call` standing in for
        the client's request context.

        Raises:
            MCPError: `requestState` names no parked call of this client.
        """
        if params.request_state is None:
            call = ParkedCall(ctx)
            call.start(start)
        else:
            call = self._parked.pop(params.request_state, None)
            if call is None:
                raise MCPError(code=types.INVALID_PARAMS, message=EXPIRED)
            call.resume(ctx)
            call.answer(params.input_responses)
        try:
            questions = await call.next_round()
        except BaseException:  # the client left (cancelled) or the gateway failed
            call.cancel()
            raise
        if questions is None:
            assert call.task is not None
            return call.task.result()
        token = secrets.token_urlsafe(24)
        self._parked[token] = call
        call.park(lambda: self._expire(token))
        return types.InputRequiredResult(input_requests=questions, request_state=token)

    def _expire(self, token: str) -> None:
        call = self._parked.pop(token, None)
        if call is not None:
            call.cancel()

    def aclose(self) -> None:
        """Cancel every parked call (the session ends)."""
        for token in list(self._parked):
            self._expire(token)
