"""Which of a client's limits a call must pass: one `Check` per budget it counts against.

Tool calls and index tool calls (IndexSearch, IndexRead) count against every limit.
Resource reads and prompts reach an upstream too, so they count against calls_per_minute
and concurrent_calls; their bytes are not measured, so bytes_per_day neither counts nor
stops them. Completions (argument suggestions, asked as a person types) count against
nothing, and neither does a call of something the client does not have.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from clients.context_settings import EffectiveSettings
from clients.limit_settings import (
    BYTES_PER_DAY,
    CALLS_PER_MINUTE,
    CONCURRENT_CALLS,
    UNLIMITED,
    ToolLimit,
    parse_tool_limits,
)
from gateway.operations.call_monitor import CallFacts
from localrouter.tool_names import TOOL_NAME_SEPARATOR

logger = logging.getLogger(__name__)

TOOL_KINDS = frozenset({"tool", "index"})
CALL_KINDS = TOOL_KINDS | {"resource", "prompt"}


@dataclass(frozen=True)
class Check:
    """One budget a call counts against: a limit, its value, and where its count is kept."""

    limit: str
    """calls_per_minute, concurrent_calls or bytes_per_day."""
    value: int
    key: str
    """The count's name within the client's counts ('calls', 'tool:github__*:running'…)."""
    day: str = ""
    """For bytes_per_day: the UTC day (YYYY-MM-DD) whose total counts."""
    pattern: str = ""
    """For a per-tool rule: its tool name or pattern ('' for the client's own limits)."""


KEY_OF = {CALLS_PER_MINUTE: "calls", CONCURRENT_CALLS: "running", BYTES_PER_DAY: "bytes"}


def tool_name(call: CallFacts) -> str:
    """The tool's name as the client sees it, which per-tool rules match ('' for others)."""
    if call.kind == "index":
        return call.name
    if call.kind == "tool":
        return f"{call.upstream}{TOOL_NAME_SEPARATOR}{call.name}"
    return ""


def checks_for(call: CallFacts, settings: EffectiveSettings, day: str) -> tuple[Check, ...]:
    """The budgets `call` counts against, given its client's effective settings."""
    if call.kind not in CALL_KINDS or call.outcome != "ok":
        return ()
    checks = [
        _check(name, getattr(settings, name), KEY_OF[name], day)
        for name in _limits_of(call)
        if getattr(settings, name) != UNLIMITED
    ]
    tool = tool_name(call)
    for rule in _rules(settings.tool_limits) if tool else ():
        if rule.matches(tool):
            checks.extend(
                _check(name, value, f"tool:{rule.pattern}:{KEY_OF[name]}", day, rule.pattern)
                for name, value in rule.limits
                if value != UNLIMITED
            )
    return tuple(checks)


def _limits_of(call: CallFacts) -> tuple[str, ...]:
    if call.kind in TOOL_KINDS:
        return (CALLS_PER_MINUTE, CONCURRENT_CALLS, BYTES_PER_DAY)
    return (CALLS_PER_MINUTE, CONCURRENT_CALLS)


def _check(name: str, value: int, key: str, day: str, pattern: str = "") -> Check:
    if name == BYTES_PER_DAY:
        return Check(name, value, f"{key}:{day}", day, pattern)
    return Check(name, value, key, pattern=pattern)


def _rules(text: str) -> tuple[ToolLimit, ...]:
    """The per-tool rules (parsed once per text); none if the stored text is not valid, which
    only a write that skipped validation can cause."""
    if not text:
        return ()
    try:
        return parse_tool_limits(text)
    except ValidationError as error:
        logger.warning("per-tool limits ignored, they are not valid: %s", "; ".join(error.messages))
        return ()
