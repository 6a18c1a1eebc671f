"""When schedules are due, with a controllable clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.schedule import ManualClock, Schedule, SystemClock


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_daily_schedule_becomes_due_once_per_day() -> None:
    schedule = Schedule(frequency="daily", time="09:30")
    created = utc(2025, 3, 10, 12, 0)  # after today's 09:30: the first run is tomorrow
    clock = ManualClock(created)
    assert not schedule.is_due(clock.now(), last_run_at=None, created_at=created)
    assert schedule.next_due(clock.now(), last_run_at=None, created_at=created) == utc(
        2025, 3, 11, 9, 30
    )
    clock.set(utc(2025, 3, 11, 9, 29))
    assert not schedule.is_due(clock.now(), last_run_at=None, created_at=created)
    clock.advance(minutes=1)
    assert schedule.is_due(clock.now(), last_run_at=None, created_at=created)
    ran = clock.advance(seconds=5)
    assert not schedule.is_due(clock.advance(hours=12), last_run_at=ran, created_at=created)
    # the scheduler was down for three days: one catch-up run, not three
    clock.advance(days=3)
    assert schedule.is_due(clock.now(), last_run_at=ran, created_at=created)
    assert not schedule.is_due(clock.now(), last_run_at=clock.now(), created_at=created)


def test_weekly_and_monthly_occurrences() -> None:
    weekly = Schedule(frequency="weekly", time="08:00", day_of_week="fri")
    assert weekly.day_of_week == 4
    assert weekly.next(utc(2025, 3, 10)) == utc(2025, 3, 14, 8)  # Monday -> Friday
    assert weekly.previous(utc(2025, 3, 10)) == utc(2025, 3, 7, 8)
    monthly = Schedule(frequency="monthly", time="06:00", day_of_month=31)
    assert monthly.next(utc(2025, 2, 1)) == utc(2025, 2, 28, 6)  # clamped to the last day
    assert monthly.next(utc(2025, 2, 28, 6)) == utc(2025, 3, 31, 6)
    assert monthly.previous(utc(2024, 3, 1)) == utc(2024, 2, 29, 6)
    assert "last day" in monthly.describe() and "Friday" in weekly.describe()


def test_time_zones_and_pause() -> None:
    paris = Schedule(frequency="daily", time="09:00", timezone="Europe/Paris")
    assert paris.next(utc(2025, 1, 15)) == utc(2025, 1, 15, 8)  # UTC+1 in winter
    assert paris.next(utc(2025, 7, 15)) == utc(2025, 7, 15, 7)  # UTC+2 in summer
    paused = Schedule(frequency="daily", time="00:00", paused=True)
    assert not paused.is_due(utc(2030, 1, 1), last_run_at=None, created_at=utc(2020, 1, 1))
    assert paused.next_due(utc(2030, 1, 1), last_run_at=None, created_at=utc(2020, 1, 1)) is None
    naive = datetime(2025, 1, 15)  # naive datetimes are UTC
    assert paris.next(naive) == utc(2025, 1, 15, 8)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"frequency": "hourly"}, "frequency"),
        ({"frequency": "daily", "time": "25:00"}, "HH:MM"),
        ({"frequency": "weekly"}, "needs day_of_week"),
        ({"frequency": "weekly", "day_of_week": 9}, "0 \\(Monday\\)"),
        ({"frequency": "weekly", "day_of_week": "someday"}, "day name"),
        ({"frequency": "monthly"}, "needs day_of_month"),
        ({"frequency": "monthly", "day_of_month": 0}, "1 to 31"),
        ({"frequency": "daily", "day_of_week": 1}, "applies to weekly"),
        ({"frequency": "daily", "timezone": "Mars/Olympus"}, "unknown timezone"),
    ],
)
def test_bad_schedules_say_what_to_fix(fields: dict, message: str) -> None:
    with pytest.raises((GiskardValidationError, ValueError), match=message):
        Schedule(**fields)


def test_clocks() -> None:
    assert SystemClock().now().tzinfo is UTC
    clock = ManualClock(utc(2025, 1, 1))
    assert clock.advance(timedelta(hours=1), minutes=30) == utc(2025, 1, 1, 1, 30)
    with pytest.raises(ValueError, match="forward"):
        clock.advance(days=-1)
    assert Schedule(frequency="daily", time="7:05").time == "07:05"
