"""Limits on what one client may call: the values' checks and the per-tool rules' text.

A limit of 0 means unlimited (the built-in default); an empty override inherits, as every
client setting does. Per-tool rules are lines of text, one budget per line:

    github__search_* calls_per_minute=10 concurrent_calls=2
    files__read_file bytes_per_day=104857600

The first word is a tool name or shell-style pattern matched against `<upstream>__<tool>`
(or the index tools' names); the tools a line matches share its limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.core.exceptions import ValidationError

from clients.rule_lines import parse_rule_lines, tool_pattern_matcher

CALLS_PER_MINUTE = "calls_per_minute"
CONCURRENT_CALLS = "concurrent_calls"
BYTES_PER_DAY = "bytes_per_day"
LIMIT_NAMES = (CALLS_PER_MINUTE, CONCURRENT_CALLS, BYTES_PER_DAY)

# A minute's calls are remembered one by one (exact sliding window), so the count is bounded.
MAX_LIMITS = {CALLS_PER_MINUTE: 100_000, CONCURRENT_CALLS: 10_000, BYTES_PER_DAY: 2**50}
UNLIMITED = 0


def validate_limit_value(name: str, value: int) -> None:
    """A limit is a whole number from 0 (unlimited) up to the limit's maximum.

    Raises:
        ValidationError: out of range.
    """
    if not 0 <= value <= MAX_LIMITS[name]:
        raise ValidationError(
            f"must be between 0 (unlimited) and {MAX_LIMITS[name]}; got {value}",
            code="out_of_range",
        )


# Field validators take the value alone, and migrations refer to them by name.
def validate_calls_per_minute(value: int) -> None:
    """Raises: ValidationError: out of range."""
    validate_limit_value(CALLS_PER_MINUTE, value)


def validate_concurrent_calls(value: int) -> None:
    """Raises: ValidationError: out of range."""
    validate_limit_value(CONCURRENT_CALLS, value)


def validate_bytes_per_day(value: int) -> None:
    """Raises: ValidationError: out of range."""
    validate_limit_value(BYTES_PER_DAY, value)


LIMIT_VALIDATORS = {
    CALLS_PER_MINUTE: validate_calls_per_minute,
    CONCURRENT_CALLS: validate_concurrent_calls,
    BYTES_PER_DAY: validate_bytes_per_day,
}


def shown_limit(value: int) -> str:
    """How a limit reads in the admin: 0 is 'unlimited'."""
    return "unlimited" if value == UNLIMITED else str(value)


@dataclass(frozen=True)
class ToolLimit:
    """One line of per-tool rules: the tools it matches and the budget they share."""

    pattern: str
    limits: tuple[tuple[str, int], ...]

    def matches(self, tool: str) -> bool:
        return tool_pattern_matcher(self.pattern)(tool) is not None


@lru_cache(maxsize=256)
def parse_tool_limits(text: str | None) -> tuple[ToolLimit, ...]:
    """The rules of a per-tool limits text (`clients.rule_lines`).

    Raises:
        ValidationError: one message per bad line, each naming its line.
    """
    first_lines: dict[str, int] = {}  # pattern -> the line that gave it limits

    def parse_line(number: int, line: str) -> ToolLimit:
        rule = _parse_rule(line)
        if rule.pattern in first_lines:
            raise ValueError(
                f"{rule.pattern!r} already has a line (line {first_lines[rule.pattern]}); "
                "put its limits on one line"
            )
        first_lines[rule.pattern] = number
        return rule

    return parse_rule_lines(text, parse_line, "invalid_tool_limits")


def _parse_rule(line: str) -> ToolLimit:
    pattern, *settings = line.split()
    expected = f"expected NAME=N with NAME one of {', '.join(LIMIT_NAMES)}"
    if "=" in pattern:
        raise ValueError("expected a tool name or pattern first, e.g. 'github__search_*'")
    if not settings:
        raise ValueError(f"no limit given; {expected}")
    limits: dict[str, int] = {}
    for setting in settings:
        name, found, raw = setting.partition("=")
        if not found or name not in LIMIT_NAMES:
            raise ValueError(f"{setting!r}: {expected}")
        if name in limits:
            raise ValueError(f"{name} is given twice")
        if not raw.isdigit():
            raise ValueError(f"{name}: expected a whole number, got {raw!r}")
        try:
            validate_limit_value(name, int(raw))
        except ValidationError as error:
            raise ValueError(f"{name}: {error.messages[0]}") from None
        limits[name] = int(raw)
    return ToolLimit(pattern, tuple(limits.items()))


def validate_tool_limits(text: str) -> None:
    """Field validator for the per-tool limits text.

    Raises:
        ValidationError: a bad line (each message names its line).
    """
    parse_tool_limits(text)


def shown_tool_limits(text: str) -> str:
    """How per-tool rules read in the admin: their lines, or 'none'."""
    try:
        rules = parse_tool_limits(text)
    except ValidationError:
        return "invalid"
    if not rules:
        return "none"
    return "; ".join(
        f"{rule.pattern} " + " ".join(f"{name}={value}" for name, value in rule.limits)
        for rule in rules
    )
