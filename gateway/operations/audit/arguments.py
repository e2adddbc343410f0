"""A call's arguments as the audit trail keeps them (when asked to): secrets masked, size bounded.

A value under a secret-looking name (`api_key`, `token`, `password`, `Authorization`…, the
names `localrouter.url_masking` masks in URLs) is replaced whole; in other text, URLs lose
their credentials and credential-looking words (`Bearer …`, `ghp_…`, `sk-…`) are redacted.
Masking errs on the side of hiding: a name like `author` is masked too. It happens in two
steps: a cheap bounded copy when the call ends (`bounded_arguments`, what waits in the
queue), and the text's masking in the writer's thread (`masked_arguments`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gateway.upstreams.errors import redact_line
from localrouter.url_masking import MASK, is_secret_key, mask_urls_in

ARGUMENTS_MAX_CHARS = 4096
"""Characters of keys and values kept for one call; what is beyond becomes `CUT`."""
MAX_DEPTH = 8
CUT = "…"
WORD_MARGIN = 200
WORD_ENDS = frozenset(" \t\r\n\"',;")
"""What ends a credential in `TOKEN_PATTERNS` and a URL in `URL_IN_TEXT`."""


def bounded_arguments(arguments: dict[str, Any], limit: int = ARGUMENTS_MAX_CHARS) -> dict:
    """A cheap copy of `arguments` to queue: values under secret-looking names masked, the
    rest cut (between words) a little beyond `limit` characters; `masked_arguments` masks
    what the texts hold, later and off the call's path."""
    return _walked(arguments, _Budget(limit), _cut_text)


def masked_arguments(arguments: dict[str, Any], limit: int = ARGUMENTS_MAX_CHARS) -> dict:
    """A copy of `arguments` with secrets masked, at most about `limit` characters of text."""
    return _walked(arguments, _Budget(limit), _masked_text)


class _Budget:
    def __init__(self, chars: int) -> None:
        self.left = chars

    def take(self, text: str, *, cut: bool = False) -> str:
        """`text` cut to what is left of the budget (marked when cut, or already `cut`)."""
        kept = text[: max(self.left, 0)]
        self.left -= len(text)
        return kept + CUT if cut or len(kept) < len(text) else kept


TextRule = Callable[[str, _Budget], str]


def _walked(arguments: dict[str, Any], budget: _Budget, text: TextRule) -> dict:
    walked = _walk(arguments, budget, text, depth=0)
    return walked if isinstance(walked, dict) else {}


def _walk(value: Any, budget: _Budget, text: TextRule, depth: int) -> Any:
    if budget.left <= 0 or depth > MAX_DEPTH:
        return CUT
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if budget.left <= 0:
                result[CUT] = CUT
                break
            name = budget.take(str(key))
            secret = is_secret_key(str(key))
            result[name] = MASK if secret else _walk(item, budget, text, depth + 1)
        return result
    if isinstance(value, list | tuple):
        items = []
        for item in value:
            if budget.left <= 0:
                items.append(CUT)
                break
            items.append(_walk(item, budget, text, depth + 1))
        return items
    if (
        value is None
        or isinstance(value, bool | int)
        or (isinstance(value, float) and math.isfinite(value))
    ):
        budget.left -= 8
        return value
    return text(str(value), budget)


def _cut_text(text: str, budget: _Budget) -> str:
    kept = _between_words(text, max(budget.left, 0) + WORD_MARGIN)
    budget.left -= len(kept)
    return kept + CUT if len(kept) < len(text) else kept


def _masked_text(text: str, budget: _Budget) -> str:
    # Masked before it is cut to the budget (a cut could split a secret from the word that
    # marks it), but only as much as could be kept, ended between words so that no secret
    # is split: the text may be megabytes long.
    kept = _between_words(text, max(budget.left, 0) + WORD_MARGIN)
    masked = mask_urls_in(redact_line(kept, ()))
    return budget.take(masked, cut=len(kept) < len(text))


def _between_words(text: str, end: int) -> str:
    """`text` up to about `end`, cut before the word that position falls in."""
    if len(text) <= end:
        return text
    for position in range(end, max(end - WORD_MARGIN, 0), -1):
        if text[position] in WORD_ENDS:
            return text[:position]
    return text[:end]
