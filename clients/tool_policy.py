"""Per-client tool policy: allow, ask or deny, per upstream and per tool.

One rule per line: a tool name as clients see it ('<upstream>__<tool>') or a shell-style
pattern ('github__*' for a whole upstream), then `allow`, `ask` or `deny`, e.g.

    github__delete_* deny
    github__* ask
    files__read_file allow

The first line that matches decides. A client's rules come first, then the global rules
(a tool neither mentions inherits), then the built-in default: allow. A denied tool is not
listed and a call to it is refused; an asked tool is called only after the person at the
client accepted (elicitation).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import lru_cache

from django.core.exceptions import ValidationError

from clients.rule_lines import parse_rule_lines, tool_pattern_matcher


class Decision(enum.StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


DEFAULT_DECISION = Decision.ALLOW
DECISIONS_KEPT = 4096  # tool names whose decision one policy remembers


@dataclass(frozen=True)
class PolicyRule:
    """One line of a tool policy: the tools it matches and what happens to them."""

    pattern: str
    decision: Decision

    def matches(self, tool: str) -> bool:
        return tool_pattern_matcher(self.pattern)(tool) is not None

    def __str__(self) -> str:
        return f"{self.pattern} {self.decision}"


@dataclass(frozen=True)
class ToolPolicy:
    """A client's effective rules (its own, then the global ones), first match deciding."""

    rules: tuple[PolicyRule, ...] = ()
    _decided: dict[str, Decision] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_text(cls, text: str | None) -> ToolPolicy:
        """The policy of a text (one object per text, so its decisions are remembered)."""
        return _policy(text)

    def decision(self, tool: str) -> Decision:
        """What happens to a call of `tool` (an exposed name) for this client."""
        decided = self._decided.get(tool)
        if decided is None:
            if len(self._decided) >= DECISIONS_KEPT:
                self._decided.clear()
            decided = next((r.decision for r in self.rules if r.matches(tool)), DEFAULT_DECISION)
            self._decided[tool] = decided
        return decided

    def lists(self, tool: str) -> bool:
        """Whether `tool` is listed at all (a denied tool is not)."""
        return self.decision(tool) is not Decision.DENY


@lru_cache(maxsize=256)
def _policy(text: str | None) -> ToolPolicy:
    return ToolPolicy(parse_tool_policy(text))


@lru_cache(maxsize=256)
def parse_tool_policy(text: str | None) -> tuple[PolicyRule, ...]:
    """The rules of a tool policy text (`clients.rule_lines`).

    Raises:
        ValidationError: one message per bad line, each naming its line.
    """
    return parse_rule_lines(text, _parse_rule, "invalid_tool_policy")


def _parse_rule(number: int, line: str) -> PolicyRule:
    words = line.split()
    if len(words) != 2 or words[1].lower() not in set(Decision):
        choices = ", ".join(d.value for d in Decision)
        raise ValueError(
            f"expected a tool name or pattern, then one of {choices}, e.g. 'github__delete_* deny'"
        )
    return PolicyRule(words[0], Decision(words[1].lower()))


def validate_tool_policy(text: str) -> None:
    """Field validator for a tool policy text.

    Raises:
        ValidationError: a bad line (each message names its line).
    """
    parse_tool_policy(text)


def shown_tool_policy(text: str) -> str:
    """How a policy reads in the admin: its rules, then what every other tool gets."""
    try:
        rules = parse_tool_policy(text)
    except ValidationError:
        return "invalid"
    return "; ".join([*(str(rule) for rule in rules), f"other tools {DEFAULT_DECISION}"])


def layered_policy(client_text: str | None, global_text: str | None) -> str:
    """A client's rules before the global ones: the text first-match reads as one policy."""
    return "\n".join(text for text in (client_text, global_text) if text)


def rules_from_patterns(allow_patterns: str, deny_patterns: str) -> str:
    """The policy lines equal to the former allow/deny pattern lists of a client."""
    deny = [f"{p.strip()} deny" for p in deny_patterns.splitlines() if p.strip()]
    allow = [f"{p.strip()} allow" for p in allow_patterns.splitlines() if p.strip()]
    return "\n".join([*deny, *allow, *(["* deny"] if allow else [])])
