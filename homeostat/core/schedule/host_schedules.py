"""When the scheduled jobs run: `agents.schedules` as GitHub cron lines and as Bitbucket schedules.

GitHub reads a five-field cron (`0 6 * * *`) from the workflow file. Bitbucket has no scheduler in the
repository: a schedule lives in Bitbucket and is created through its Pipelines schedules API, whose
`cron_pattern` is a seven-field Quartz expression, seconds first and year last (`0 0 6 * * ? *`), in
UTC. Quartz numbers weekdays 1-7 from Sunday where cron numbers them 0-6 from Sunday, so weekdays are
written as names (MON), which both read the same way, and exactly one of the two day fields is `?`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from homeostat.core.config import Schedules

_WEEKDAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
_FIELD = re.compile(r"^[\w*,/-]+$")


class CronError(ValueError):
    """A cron expression Bitbucket's schedules cannot take; the message says why."""


@dataclass(frozen=True)
class Scheduled:
    """One scheduled job: its `agents.schedules` key, its cron, and the Bitbucket custom pipeline."""

    key: str  # daily, deepDive, digest (as in homeostat.yaml)
    cron: str
    pipeline: str  # the custom pipeline in bitbucket-pipelines.yml


def scheduled_pipelines(schedules: Schedules) -> tuple[Scheduled, ...]:
    """Each job's cron line as written and the Bitbucket pipeline it runs (`homeostat up` parses its
    own lines with `core.schedule.up.parsed_jobs`)."""
    return (
        Scheduled("daily", schedules.daily, "homeostat-daily"),
        Scheduled("deepDive", schedules.deep_dive, "homeostat-deep-dive"),
        Scheduled("digest", schedules.digest, "homeostat-digest"),
    )


def _weekday(value: str) -> str:
    if value.isdigit():
        number = int(value)
        if number > 7:
            raise CronError(f"day of week {value} is not 0-7")
        return _WEEKDAYS[number]
    if value.upper()[:3] in _WEEKDAYS and len(value) == 3:
        return value.upper()
    raise CronError(f"day of week {value!r} is not a number 0-7 or a name such as MON")


def _weekdays(field: str) -> str:
    """`1-5` → `MON-FRI`, `1,3` → `MON,WED`; steps are refused (Quartz and cron count them apart)."""
    if "/" in field:
        raise CronError(f"a step in the day of week ({field}) cannot be carried over; list the days")
    parts = []
    for item in field.split(","):
        ends = item.split("-")
        if len(ends) > 2 or not all(ends):
            raise CronError(f"day of week {item!r} is not a day or a range of days")
        parts.append("-".join(_weekday(end) for end in ends))
    return ",".join(parts)


def cron_fields(cron: str) -> list[str]:
    """The five fields of a cron line (minute hour day-of-month month day-of-week), or a `CronError`."""
    fields = cron.split()
    if len(fields) != 5 or not all(_FIELD.match(field) for field in fields):
        raise CronError(f"{cron!r} is not a five-field cron (minute hour day-of-month month day-of-week)")
    return fields


def quartz_cron(cron: str) -> str:
    """A five-field cron (minute hour day month weekday, UTC) as Bitbucket's seven-field pattern."""
    minute, hour, day, month, weekday = cron_fields(cron)
    if weekday == "*":
        return f"0 {minute} {hour} {day} {month} ? *"
    if day == "*":
        return f"0 {minute} {hour} ? {month} {_weekdays(weekday)} *"
    raise CronError(
        f"{cron!r} names both a day of the month and a day of the week, which Bitbucket's schedules"
        " cannot express; keep one and make the other *"
    )


@dataclass(frozen=True)
class PipelineSchedule:
    """A schedule as Bitbucket holds it: which custom pipeline, on which branch, when."""

    pipeline: str
    branch: str
    cron: str  # Quartz, seven fields
    uuid: str = ""
    enabled: bool = True


class ScheduleOutcome(StrEnum):
    CREATE = "created"
    SAME = "unchanged"
    KEEP = "kept"  # another time is set in Bitbucket; --force replaces it
    REPLACE = "replaced"


@dataclass(frozen=True)
class SchedulePlan:
    wanted: PipelineSchedule
    outcome: ScheduleOutcome
    existing: tuple[PipelineSchedule, ...] = ()  # the schedules of that pipeline and branch now


def wanted_schedules(schedules: Schedules, branch: str) -> list[PipelineSchedule]:
    """One Bitbucket schedule per scheduled job, on the KB's base branch; a bad cron names its key."""
    wanted = []
    for job in scheduled_pipelines(schedules):
        try:
            wanted.append(PipelineSchedule(job.pipeline, branch, quartz_cron(job.cron)))
        except CronError as exc:
            raise CronError(f"agents.schedules.{job.key}: {exc}") from None
    return wanted


def plan_schedules(
    wanted: list[PipelineSchedule], existing: list[PipelineSchedule], *, force: bool
) -> list[SchedulePlan]:
    """Create what is missing; a pipeline already scheduled at another time is kept unless `force`."""
    plans = []
    for schedule in wanted:
        same_target = tuple(
            e for e in existing if (e.pipeline, e.branch) == (schedule.pipeline, schedule.branch)
        )
        if not same_target:
            outcome = ScheduleOutcome.CREATE
        elif any(_same_time(e.cron, schedule.cron) for e in same_target):
            outcome = ScheduleOutcome.SAME
        else:
            outcome = ScheduleOutcome.REPLACE if force else ScheduleOutcome.KEEP
        plans.append(SchedulePlan(schedule, outcome, same_target))
    return plans


def _same_time(one: str, other: str) -> bool:
    return one.split() == other.split()
