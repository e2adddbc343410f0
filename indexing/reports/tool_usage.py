"""Which tools a client uses, read back from its session records (names and counts only)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from indexing.reports.models import SessionRecord
from localrouter.tool_names import TOOL_NAME_SEPARATOR

RECENT_SESSIONS = 200
HALF_LIFE_DAYS = 7.0
WINDOW_DAYS = 30
TOP_TOOLS = 50


def client_tool_usage(client_id: int, *, now: datetime | None = None) -> dict[str, float]:
    """Exposed tool name -> calls in the client's recent sessions, a week-old call counting
    half; the index tools are left out. At most the `TOP_TOOLS` most used."""
    now = now or timezone.now()
    records = (
        SessionRecord.objects.filter(
            client_id=client_id, last_activity_at__gte=now - timedelta(days=WINDOW_DAYS)
        )
        .order_by("-last_activity_at")
        .values_list("calls_by_tool", "last_activity_at")[:RECENT_SESSIONS]
    )
    scores: dict[str, float] = {}
    for calls, last in records:
        weight = 0.5 ** ((now - last).total_seconds() / 86_400 / HALF_LIFE_DAYS)
        for tool, count in (calls or {}).items():
            if TOOL_NAME_SEPARATOR in tool and isinstance(count, int) and count > 0:
                scores[tool] = scores.get(tool, 0.0) + count * weight
    top = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:TOP_TOOLS]
    return {tool: round(score, 2) for tool, score in top}
