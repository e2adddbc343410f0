"""Rule texts of a client's settings: one rule per line over tool names as clients see them
(`<upstream>__<tool>`) or shell-style patterns of them; blank lines and `#` comments apart.

The tool policy (`clients.tool_policy`) and the per-tool limits (`clients.limit_settings`)
are such texts: each says how one of its lines reads, and this module reads the lines.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from functools import lru_cache

from django.core.exceptions import ValidationError

MAX_RULES = 100


@lru_cache(maxsize=1024)
def tool_pattern_matcher(pattern: str):
    """A compiled shell-style pattern over exposed tool names ('<upstream>__<tool>')."""
    return re.compile(fnmatch.translate(pattern)).match


def parse_rule_lines[R](
    text: str | None, parse_line: Callable[[int, str], R], code: str
) -> tuple[R, ...]:
    """The rules of `text`, one a line, as `parse_line(number, line)` reads each (it raises
    ValueError saying what is wrong with the line).

    Raises:
        ValidationError (with `code`): one message per bad line, each naming its line; more
            than `MAX_RULES` rules.
    """
    rules: list[R] = []
    errors: list[str] = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            rules.append(parse_line(number, line))
        except ValueError as error:
            errors.append(f"line {number} ({line!r}): {error}")
    if len(rules) > MAX_RULES:
        errors.append(f"at most {MAX_RULES} lines of rules; got {len(rules)}")
    if errors:
        raise ValidationError(errors, code=code)
    return tuple(rules)
