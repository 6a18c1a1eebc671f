"""Clocks: where schedules read the current time. ``SystemClock`` in production, ``ManualClock`` in tests
and demos (time moves only when told, so "a schedule becomes due" is tested without waiting)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from giskard_nb.schedule.timing import as_utc

__all__ = ["Clock", "ManualClock", "SystemClock"]


@runtime_checkable
class Clock(Protocol):
    """Anything with ``now() -> datetime`` (aware, UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The machine's clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def __repr__(self) -> str:
        return "SystemClock()"


class ManualClock:
    """A clock that stands still until ``advance``d or ``set`` (thread-safe)."""

    def __init__(self, start: datetime | None = None):
        self._now = as_utc(start) if start is not None else datetime(2025, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, moment: datetime) -> datetime:
        with self._lock:
            self._now = as_utc(moment)
            return self._now

    def advance(
        self,
        delta: timedelta | None = None,
        *,
        days: float = 0,
        hours: float = 0,
        minutes: float = 0,
        seconds: float = 0,
    ) -> datetime:
        """Move forward by ``delta`` and/or the given amounts; returns the new time."""
        step = (delta or timedelta()) + timedelta(
            days=days, hours=hours, minutes=minutes, seconds=seconds
        )
        if step < timedelta():
            raise ValueError("a ManualClock only moves forward: use set() to go back")
        with self._lock:
            self._now += step
            return self._now

    def __repr__(self) -> str:
        return f"ManualClock({self._now.isoformat()})"
