"""When a recurring job is due: a pure computation over a schedule, the last run and the current time.

``Schedule`` holds a frequency (``daily``, ``weekly``, ``monthly``), a time of day (``"HH:MM"``, in
``timezone``, default UTC), the day of the week (weekly; ``0``/``"monday"`` … ``6``/``"sunday"``) or of the
month (monthly; ``1``–``31``, clamped to the month's last day, so ``31`` means "last day") and ``paused``.

A schedule is due when its latest occurrence at or before *now* is later than the last run (or, before
any run, than the moment the schedule was created). A scheduler that was down for a week runs a missed
job once, not seven times. Daylight-saving gaps and overlaps resolve as ``zoneinfo`` does.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from giskard_nb.errors import GiskardValidationError

__all__ = ["DAYS", "Frequency", "Schedule", "ScheduleFields", "as_utc"]

Frequency = Literal["daily", "weekly", "monthly"]
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime (a naive one is taken as UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class ScheduleFields(BaseModel):
    """The fields of a recurrence, as ``Schedule`` validates them and a stored schedule (the Hub's
    ``ScheduledEvaluation``) carries them."""

    frequency: Frequency
    time: str = "09:00"
    day_of_week: int | None = None
    day_of_month: int | None = None
    timezone: str = "UTC"
    paused: bool = False


class Schedule(ScheduleFields):
    """A recurrence: ``frequency`` at ``time`` (``"HH:MM"``) in ``timezone``, on ``day_of_week`` (weekly)
    or ``day_of_month`` (monthly)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("time", mode="before")
    @classmethod
    def _time(cls, value: Any) -> str:
        if isinstance(value, time):
            return f"{value.hour:02d}:{value.minute:02d}"
        match = _TIME.match(str(value).strip())
        if not match:
            raise GiskardValidationError(
                f"time is the time of day as 'HH:MM' (24-hour clock), got {value!r}"
            )
        return f"{int(match.group(1)):02d}:{match.group(2)}"

    @field_validator("day_of_week", mode="before")
    @classmethod
    def _weekday(cls, value: Any) -> int | None:
        if value is None:
            return None
        if isinstance(value, str):
            name = value.strip().lower()
            matches = [i for i, day in enumerate(DAYS) if day.startswith(name) and len(name) >= 3]
            if len(matches) == 1:
                return matches[0]
            if name.isdigit():
                value = int(name)
            else:
                raise GiskardValidationError(
                    f"day_of_week is 0 (Monday) to 6 (Sunday) or a day name, got {value!r}"
                )
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 6:
            raise GiskardValidationError(
                f"day_of_week is 0 (Monday) to 6 (Sunday) or a day name, got {value!r}"
            )
        return value

    @field_validator("day_of_month")
    @classmethod
    def _monthday(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= 31:
            raise GiskardValidationError(
                f"day_of_month is 1 to 31 (31: the last day of every month), got {value}"
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise GiskardValidationError(
                f"unknown timezone {value!r}: use an IANA name such as 'UTC' or 'Europe/Paris'"
            ) from None
        return value

    @model_validator(mode="after")
    def _days_fit(self) -> Schedule:
        if self.frequency == "weekly" and self.day_of_week is None:
            raise GiskardValidationError(
                "a weekly schedule needs day_of_week (0 = Monday … 6 = Sunday, or a day name)"
            )
        if self.frequency == "monthly" and self.day_of_month is None:
            raise GiskardValidationError("a monthly schedule needs day_of_month (1 to 31)")
        if self.frequency != "weekly" and self.day_of_week is not None:
            raise GiskardValidationError(
                f"day_of_week applies to weekly schedules, not {self.frequency}"
            )
        if self.frequency != "monthly" and self.day_of_month is not None:
            raise GiskardValidationError(
                f"day_of_month applies to monthly schedules, not {self.frequency}"
            )
        return self

    # -- occurrences ---------------------------------------------------------------------------------

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def _at(self, day: date) -> datetime:
        hour, minute = map(int, self.time.split(":"))
        return as_utc(datetime(day.year, day.month, day.day, hour, minute, tzinfo=self.zone))

    def _matches(self, day: date) -> bool:
        if self.frequency == "daily":
            return True
        if self.frequency == "weekly":
            return day.weekday() == self.day_of_week
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day == min(self.day_of_month or 1, last)

    def previous(self, moment: datetime) -> datetime:
        """The latest occurrence at or before ``moment`` (UTC)."""
        moment = as_utc(moment)
        day = moment.astimezone(self.zone).date() + timedelta(days=1)
        for _ in range(400):
            if self._matches(day):
                at = self._at(day)
                if at <= moment:
                    return at
            day -= timedelta(days=1)
        raise AssertionError("a schedule occurs at least once a month")  # pragma: no cover

    def next(self, moment: datetime) -> datetime:
        """The first occurrence strictly after ``moment`` (UTC)."""
        moment = as_utc(moment)
        day = moment.astimezone(self.zone).date() - timedelta(days=1)
        for _ in range(400):
            if self._matches(day):
                at = self._at(day)
                if at > moment:
                    return at
            day += timedelta(days=1)
        raise AssertionError("a schedule occurs at least once a month")  # pragma: no cover

    def is_due(self, now: datetime, *, last_run_at: datetime | None, created_at: datetime) -> bool:
        """Whether a run is due at ``now`` (never when paused)."""
        if self.paused:
            return False
        since = as_utc(last_run_at) if last_run_at is not None else as_utc(created_at)
        return self.previous(now) > since

    def next_due(
        self, now: datetime, *, last_run_at: datetime | None, created_at: datetime
    ) -> datetime | None:
        """When the next run is due: ``now``'s occurrence if it is already due, else the next one
        (``None`` when paused)."""
        if self.paused:
            return None
        if self.is_due(now, last_run_at=last_run_at, created_at=created_at):
            return self.previous(now)
        since = as_utc(last_run_at) if last_run_at is not None else as_utc(created_at)
        return self.next(max(as_utc(now), since))

    def describe(self) -> str:
        """In words: "every Monday at 09:00 UTC"."""
        zone = self.timezone
        if self.frequency == "daily":
            text = f"every day at {self.time} {zone}"
        elif self.frequency == "weekly":
            text = f"every {DAYS[self.day_of_week or 0].capitalize()} at {self.time} {zone}"
        else:
            day = "the last day" if self.day_of_month == 31 else f"day {self.day_of_month}"
            text = f"on {day} of every month at {self.time} {zone}"
        return f"{text} (paused)" if self.paused else text
