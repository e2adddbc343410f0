"""A session's guardrail decisions as the report lists them (counts only, never content).

`SessionRecord.guardrails` maps "<decision>" or "<decision>:<detail>" to a count, e.g.
{"masked:github token": 2, "denied": 1}; the gateway's guardrails write it.
"""

from __future__ import annotations

from dataclasses import dataclass

DETAIL_SEPARATOR = ":"


@dataclass(frozen=True)
class GuardrailRow:
    """One counted decision: `masked` / `github token` / 2."""

    decision: str
    detail: str
    count: int


def guardrail_rows(counts: dict[str, int]) -> list[GuardrailRow]:
    """The counts as rows, by decision then detail; anything but a positive count is left out."""
    rows = []
    for key, count in counts.items():
        if not isinstance(count, int) or count <= 0:
            continue
        decision, _, detail = str(key).partition(DETAIL_SEPARATOR)
        rows.append(GuardrailRow(decision, detail, count))
    return sorted(rows, key=lambda row: (row.decision, row.detail))
