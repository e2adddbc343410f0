"""The `ask` decision of the tool policy: the person at the client accepts each call first.

The gateway asks through elicitation in form mode, naming the tool and showing its arguments
with secrets masked: a request of its own on the call's stream in the handshake era, an
`input_required` round in the 2026-07-28 era (the same path an upstream's own elicitation
takes, `gateway.sessions.reverse_requests.send_to_client`). Only `accept` lets the call go on.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from gateway.operations.audit.arguments import masked_arguments
from gateway.operations.call_monitor import CallFacts
from gateway.sessions.reverse_requests import send_to_client
from indexing.api.tool_results import text_result

ELICITATION = types.ClientCapabilities(elicitation=types.ElicitationCapability())
HOW_TO_ALLOW = (
    "A LocalRouter administrator can allow it for this client: in the admin, Clients -> "
    "this client -> Guardrails -> Tool policy, add the line '{tool} allow'."
)


@dataclass(frozen=True)
class Answer:
    """How the person at the client answered (`accept`, `decline`, `cancel`, the elicitation's
    actions), or `unsupported` / `failed` when they could not be asked; `refusal` is the tool
    error text."""

    outcome: str
    refusal: str = ""

    @property
    def accepted(self) -> bool:
        return self.outcome == "accept"


def question(tool: str, arguments: dict[str, Any] | None) -> types.ElicitRequest:
    """The form the person at the client sees: the tool, its arguments (secrets masked)."""
    shown = json.dumps(masked_arguments(arguments or {}), indent=2, ensure_ascii=False)
    message = (
        f"LocalRouter asks before running the tool {tool!r}.\n"
        f"Arguments (secrets masked):\n{shown}\n"
        "Accept to run it; decline or cancel to stop it."
    )
    params = types.ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": {}}
    )
    return types.ElicitRequest(params=params)


async def ask_before_call(caller: Any, tool: str, arguments: dict[str, Any] | None) -> Answer:
    """Ask the person at the client whether `tool` may run with these arguments.

    `caller` is the call's SDK request context (handshake era) or its `ParkedCall`.
    """
    if not caller.session.check_client_capability(ELICITATION):
        return Answer(
            "unsupported",
            f"The tool {tool!r} needs the approval of the person at the client for each "
            "call, and this client cannot be asked (it does not support elicitation). "
            + HOW_TO_ALLOW.format(tool=tool),
        )
    answer = await send_to_client(caller, question(tool, arguments), types.ElicitResult)
    if isinstance(answer, types.ErrorData):
        return Answer(
            "failed",
            f"The call of {tool!r} was not run: asking for approval failed ({answer.message}).",
        )
    if answer.action == "accept":
        return Answer("accept")
    answered = "declined" if answer.action == "decline" else "cancelled"
    return Answer(
        answer.action,
        f"The call of {tool!r} was not run: the person at the client {answered} it.",
    )


async def confirmed(
    caller: Any, tool: str, arguments: dict[str, Any] | None, call: CallFacts, counts: Counter
) -> types.CallToolResult | None:
    """Ask before an `ask` tool runs: None to go on, else the tool error to answer with.

    The decision, `asked:<answer>`, is counted on the call's facts (its audit row) and in
    the session's guardrail counts (its report), without the arguments.
    """
    answer = await ask_before_call(caller, tool, arguments)
    key = f"asked:{answer.outcome}"
    counts[key] += 1
    call.guardrails[key] += 1
    if answer.accepted:
        return None
    call.fail("refused", f"ask_{answer.outcome}")
    return text_result(answer.refusal, error=True)
