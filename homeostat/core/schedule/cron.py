"""Five-field cron lines (`agents.schedules`) as `homeostat up` runs them: when is a job due.

The same lines the CI templates carry (minute hour day-of-month month day-of-week, UTC), read the
way cron reads them: `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists, weekday and month
names, 0 or 7 for Sunday, and, when both day fields are restricted, a day matching either one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from homeostat.core.schedule.host_schedules import CronError, cron_fields

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
MINUTE = dt.timedelta(minutes=1)
# How far back `latest_slot` looks at most: a weekly job's slot is never more than 8 days old.
SEARCH_LIMIT = dt.timedelta(days=400)


def _number(text: str, names: tuple[str, ...], base: int, field: str) -> int:
    upper = text.upper()
    if upper in names:
        return names.index(upper) + base
    if not text.isdigit():
        raise CronError(f"{field} {text!r} is not a number")
    return int(text)


def _field(
    text: str, low: int, high: int, field: str, names: tuple[str, ...] = (), base: int = 0
) -> frozenset[int]:
    values: set[int] = set()
    for item in text.split(","):
        body, _, step_text = item.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if step_text and step is None:
            raise CronError(f"{field} step {step_text!r} is not a positive number")
        if body == "*":
            start, end = low, high
        elif "-" in body:
            first, _, last = body.partition("-")
            start, end = _number(first, names, base, field), _number(last, names, base, field)
        else:
            start = _number(body, names, base, field)
            end = high if step else start
        if not (low <= start <= high and low <= end <= high) or start > end:
            raise CronError(f"{field} {item!r} is outside {low}-{high}")
        values.update(range(start, end + 1, step or 1))
    return frozenset(values)


@dataclass(frozen=True)
class Cron:
    """A parsed cron line; `matches` tells whether a minute (UTC) is one of its slots."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    any_day: bool
    any_weekday: bool

    def matches(self, moment: dt.datetime) -> bool:
        at = moment.astimezone(dt.UTC)
        if at.minute not in self.minutes or at.hour not in self.hours or at.month not in self.months:
            return False
        day_ok = at.day in self.days
        weekday_ok = (at.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return day_ok and weekday_ok
        return day_ok or weekday_ok

    def latest_slot(self, now: dt.datetime, after: dt.datetime) -> dt.datetime | None:
        """The latest slot at or before `now` and strictly after `after` (None when there is none)."""
        moment = _floor(now)
        stop = max(_floor(after), moment - SEARCH_LIMIT)
        while moment > stop:
            if self.matches(moment):
                return moment
            moment = self._step_back(moment)
        return None

    def next_slot(self, after: dt.datetime) -> dt.datetime:
        """The first slot strictly after `after`."""
        moment = _floor(after) + MINUTE
        limit = moment + SEARCH_LIMIT
        while moment < limit:
            if self.matches(moment):
                return moment
            moment = self._step_forward(moment)
        raise CronError(f"{self.text!r} has no slot within a year")

    def _step_back(self, moment: dt.datetime) -> dt.datetime:
        """Skip a whole hour or day that cannot match (a weekly job is found in a few hundred steps)."""
        if moment.hour not in self.hours or not self._day_matches(moment):
            return moment.replace(minute=0) - MINUTE
        return moment - MINUTE

    def _step_forward(self, moment: dt.datetime) -> dt.datetime:
        if moment.hour not in self.hours or not self._day_matches(moment):
            return moment.replace(minute=0) + dt.timedelta(hours=1)
        return moment + MINUTE

    def _day_matches(self, moment: dt.datetime) -> bool:
        return moment.month in self.months and self.matches(
            moment.replace(minute=min(self.minutes), hour=min(self.hours))
        )


def _floor(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.UTC).replace(second=0, microsecond=0)


def parse_cron(text: str) -> Cron:
    """A five-field cron line, or a `CronError` saying which field is wrong."""
    minute, hour, day, month, weekday = cron_fields(text)
    weekdays = _field(weekday, 0, 7, "day of week", _DAYS)
    return Cron(
        text=text,
        minutes=_field(minute, 0, 59, "minute"),
        hours=_field(hour, 0, 23, "hour"),
        days=_field(day, 1, 31, "day of month"),
        months=_field(month, 1, 12, "month", _MONTHS, 1),
        weekdays=frozenset(d % 7 for d in weekdays),
        any_day=day.startswith("*"),
        any_weekday=weekday.startswith("*"),
    )
