"""The limits' arithmetic: sliding windows, UTC days and waits as people read them."""

from collections import deque
from datetime import UTC, datetime

import pytest

from gateway.operations.limits.windows import (
    MINUTE,
    seconds_to_next_utc_day,
    utc_day,
    wait_text,
    window_wait,
)


def test_a_window_admits_up_to_its_limit_then_waits_for_the_oldest_call_to_leave():
    times = deque([100.0, 110.0, 130.0])
    assert window_wait(times, 4, MINUTE, 140.0) is None
    assert window_wait(times, 3, MINUTE, 140.0) == pytest.approx(20.0)  # 100 leaves at 160


def test_calls_that_left_the_window_are_forgotten():
    times = deque([100.0, 110.0, 130.0])
    assert window_wait(times, 3, MINUTE, 165.0) is None
    assert list(times) == [110.0, 130.0]


def test_a_call_exactly_one_window_old_has_left_it():
    times = deque([100.0])
    assert window_wait(times, 1, MINUTE, 160.0) is None
    assert not times


def test_after_a_lowered_limit_room_comes_when_enough_calls_have_left():
    # Five calls in the window and a limit of two: a sixth fits once only one is left.
    times = deque([100.0, 101.0, 102.0, 103.0, 104.0])
    assert window_wait(times, 2, MINUTE, 110.0) == pytest.approx(53.0)  # 103 leaves at 163


def test_a_day_is_its_utc_date_and_ends_at_utc_midnight():
    moment = datetime(2026, 12, 6, 23, 59, 30, tzinfo=UTC).timestamp()
    assert utc_day(moment) == "2026-12-06"
    assert seconds_to_next_utc_day(moment) == pytest.approx(30.0)
    assert utc_day(moment + 30) == "2026-12-07"
    assert seconds_to_next_utc_day(moment + 30) == pytest.approx(86_400.0)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.2, "1 s"),
        (11.01, "12 s"),
        (59.5, "60 s"),
        (118.5, "119 s"),
        (120.5, "2 min 1 s"),
        (185, "3 min 5 s"),
        (3600, "1 h"),
        (5 * 3600 + 11 * 60 + 1, "5 h 12 min"),
    ],
)
def test_waits_read_in_whole_units_rounded_up(seconds, text):
    assert wait_text(seconds) == text
