"""JSON with comments and trailing commas (JSONC), as VS Code and Cursor write it."""

from __future__ import annotations

import json
import re
from typing import Any

# Strings are matched first, so that '//' or ',}' inside a string is left alone.
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_COMMENT = re.compile(_STRING + r"|//[^\n]*|/\*.*?\*/", re.DOTALL)
_TRAILING_COMMA = re.compile(_STRING + r"|,(?=\s*[\]}])")


def _blank(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.startswith('"'):
        return token
    # Keep line breaks so that error positions still point at the right line.
    return re.sub(r"[^\n]", " ", token)


def strip_jsonc(text: str) -> str:
    """Plain JSON text: comments and trailing commas replaced by spaces, positions kept."""
    return _TRAILING_COMMA.sub(_blank, _COMMENT.sub(_blank, text))


def loads(text: str) -> Any:
    """Parse JSON or JSONC.

    Raises:
        json.JSONDecodeError: the text is not valid even with comments and trailing commas.
    """
    return json.loads(strip_jsonc(text))
