"""The rule texts of a client's settings, read alike: the tool policy and per-tool limits."""

import pytest
from django.core.exceptions import ValidationError

from clients.limit_settings import parse_tool_limits
from clients.rule_lines import MAX_RULES
from clients.tool_policy import parse_tool_policy

TEXTS = [(parse_tool_policy, "deny"), (parse_tool_limits, "calls_per_minute=5")]


@pytest.mark.parametrize(("parse", "setting"), TEXTS)
def test_comments_and_blank_lines_are_skipped(parse, setting):
    text = f"# the team's rules\n\n   \na__* {setting}  # all of a\nb__x {setting}\n"
    assert [rule.pattern for rule in parse(text)] == ["a__*", "b__x"]


@pytest.mark.parametrize(("parse", "setting"), TEXTS)
def test_every_bad_line_is_named_and_nothing_is_taken(parse, setting):
    with pytest.raises(ValidationError) as raised:
        parse(f"a__* {setting}\nb__x\n\nc__y {setting} extra=1")
    assert [message.split(":")[0] for message in raised.value.messages] == [
        "line 2 ('b__x')",
        f"line 4 ('c__y {setting} extra=1')",
    ]


@pytest.mark.parametrize(("parse", "setting"), TEXTS)
def test_at_most_a_hundred_rules(parse, setting):
    lines = [f"u__tool{number} {setting}" for number in range(MAX_RULES + 1)]
    assert len(parse("\n".join(lines[:MAX_RULES]))) == MAX_RULES
    with pytest.raises(ValidationError, match=f"at most {MAX_RULES} lines of rules; got 101"):
        parse("\n".join(lines))
