"""Validation of IndexSearch and IndexRead arguments; bad values raise IndexToolError.

Whole numbers may arrive as `7`, `7.0` or `"7"`, and a limit over its maximum counts as
the maximum (as the tools' descriptions say); what the schemas exclude (a limit below 1,
queries that are not a list) is refused with an error that shows the expected form.
"""

import re

from indexing.engine.errors import IndexToolError
from indexing.engine.text import one_line

MAX_QUERIES = 20
_WHOLE_NUMBER = re.compile(r"\s*[+-]?[0-9]{1,18}\s*")
_OFFSET = re.compile(r"([0-9]{1,18})(?:-([0-9]{1,18}))?")


def _shown(value: object) -> str:
    """Render a bad argument for an error message, shortened."""
    return one_line(repr(value), 60)


def parse_limit(value: object, *, default: int, maximum: int | None = None) -> int:
    """Return `value` as a whole number of at most `maximum`, or `default` when absent.

    Raises:
        IndexToolError: the value is not a whole number, or is below 1.
    """
    if value is None:
        return default
    number = _whole_number(value)
    if number is None:
        raise IndexToolError(f"limit must be a whole number, got {_shown(value)}")
    if number < 1:
        raise IndexToolError(f"limit must be at least 1, got {_shown(value)}")
    return number if maximum is None else min(number, maximum)


def _whole_number(value: object) -> int | None:
    """Return an int for `7`, `7.0` or `" 7 "`; None for anything else (bools included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value):
        return int(value)
    return None


def parse_offset(value: object) -> tuple[int, int]:
    """Return (line, part) from an offset such as `"61"` or `"61-2"` (1-based); (1, 1) if absent.

    Raises:
        IndexToolError: the offset is malformed or zero.
    """
    if value is None:
        return 1, 1
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    match = _OFFSET.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise IndexToolError(
            'offset must be a line number such as "61", or a line and part such as "61-2"'
            f" for a long line; got {_shown(value)}"
        )
    line, part = int(match.group(1)), int(match.group(2) or 1)
    if line < 1 or part < 1:
        raise IndexToolError(f"offset {_shown(value)} is invalid: lines and parts start at 1")
    return line, part


def parse_flag(value: object, name: str) -> bool:
    """Return a yes/no argument: `true`/`false` (or `"true"`/`"false"`); False when absent.

    Raises:
        IndexToolError: anything else.
    """
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise IndexToolError(f"{name} must be true or false, got {_shown(value)}")


def parse_queries(value: object) -> list[str]:
    """Return the list of query strings.

    Raises:
        IndexToolError: not a non-empty list of at most MAX_QUERIES strings.
    """
    if not isinstance(value, list | tuple) or not value:
        raise IndexToolError(
            f'queries must be a non-empty list of strings such as ["<terms>"], got {_shown(value)}'
        )
    if not all(isinstance(query, str) for query in value):
        raise IndexToolError("queries must contain only strings")
    if len(value) > MAX_QUERIES:
        raise IndexToolError(f"at most {MAX_QUERIES} queries per call, got {len(value)}")
    return list(value)


def parse_source(value: object) -> str | None:
    """Return the label prefix to search in, or None for all labels.

    Raises:
        IndexToolError: the source is not a string.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise IndexToolError(f"source must be a label prefix string, got {_shown(value)}")
    return value


def parse_label(value: object) -> str:
    """Return the label to read.

    Raises:
        IndexToolError: the label is missing or not a string.
    """
    if not isinstance(value, str) or not value:
        raise IndexToolError(f"label must be a non-empty string, got {_shown(value)}")
    return value
