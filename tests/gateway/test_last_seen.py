"""`last_seen_at` is written at most once a minute per client."""

import time

from gateway.sessions.last_seen import LastSeen


def test_a_client_is_due_once_then_not_again_within_the_minute(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    last_seen = LastSeen(every=60)
    assert last_seen.due([3, 3, None, 5]) == [3, 5]
    now[0] += 59
    assert last_seen.due([3, 5, 7]) == [7]
    now[0] += 1
    assert last_seen.due([3, 7]) == [3]
