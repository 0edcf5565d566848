"""Week-by-week numbers for the dashboard's trend charts, from the clone's copy of the state branch
and this machine's event log.

A week is an ISO week, Monday 00:00 UTC to the next Monday; the last one is the current week, so
far. A week that ended before the KB was set up has no value (None: a gap in the line, or "no data
yet" when every week is one), unlike a week with nothing in it (0), so a new KB's charts say that
nothing was measured yet instead of drawing a flat line of zeros.

Runs on time are counted against the slots of `agents.schedules` as it reads now: a slot is on time
when a run of its job started within `GRACE` of it and did not fail (the dashboard flags a job late
after the same hour).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from homeostat.core.events import Event
from homeostat.core.measure.metrics import LESSON_KINDS, decision_metrics, share
from homeostat.core.schedule.cron import parse_cron
from homeostat.core.schedule.host_schedules import CronError
from homeostat.core.state.branch import DecisionRecord, StateSnapshot

WEEKS = 8
GRACE = dt.timedelta(hours=1)  # a run this long after its slot is still on time (and not late)
MAX_SLOTS = 400  # per job and week: a cron line firing more often is counted up to this many
WEEK = dt.timedelta(days=7)


@dataclass(frozen=True)
class Week:
    start: dt.datetime  # Monday 00:00 UTC
    end: dt.datetime  # the next Monday (for the current week, after now)

    @property
    def label(self) -> str:
        return f"{self.start.day} {self.start:%b}"

    def holds(self, moment: dt.datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end


def weeks(now: dt.datetime, count: int = WEEKS) -> tuple[Week, ...]:
    """The last `count` ISO weeks, oldest first; the last holds `now`."""
    today = now.astimezone(dt.UTC)
    monday = (today - dt.timedelta(days=today.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
    starts = [monday - WEEK * (count - 1 - i) for i in range(count)]
    return tuple(Week(start, start + WEEK) for start in starts)


@dataclass(frozen=True)
class Line:
    name: str
    values: tuple[float | None, ...]  # one a week; None: not measured that week


@dataclass(frozen=True)
class Trend:
    """One weekly chart: what it shows, its y axis and unit, its lines and an optional dashed
    reference (a cap, a limit) drawn without markers."""

    title: str
    y_label: str
    unit: str  # "%" (shares, 0..1), "$", "h", "days" or "" (counts)
    weeks: tuple[Week, ...]
    lines: tuple[Line, ...]
    reference: Line | None = None
    empty: str = "No data yet"
    high: float | None = None  # a fixed top (1.0 for shares)

    @property
    def has_data(self) -> bool:
        return any(value is not None for line in self.lines for value in line.values)


def per_week(
    spans: Sequence[Week], start: dt.datetime | None, value: Callable[[Week], float | None]
) -> tuple[float | None, ...]:
    """`value(week)` for each week that ends after `start` (the KB's set-up); None for the others."""
    return tuple(None if start is None or week.end <= start else value(week) for week in spans)


def first(moments: Iterable[dt.datetime | None]) -> dt.datetime | None:
    """The earliest of `moments`: where a line's data begins (weeks before it are not measured)."""
    return min((moment for moment in moments if moment is not None), default=None)


def kb_started(snapshot: StateSnapshot, set_up: dt.datetime | None) -> dt.datetime | None:
    """When the KB began: `homeostat.yaml`'s first commit, or the oldest decision or run on the state
    branch where that is older (a KB whose history was rewritten keeps its runs)."""
    moments = [r.at for r in snapshot.records()] + [r.started_at for r in snapshot.runs.values()]
    return first([set_up, *moments])


# --- runs on time --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _week_slots(cron_text: str, monday: dt.datetime) -> tuple[dt.datetime, ...]:
    """One ISO week's slots (walking a cron line slot by slot is slow: each page reads the same
    weeks several times). None for a broken line; at most `MAX_SLOTS`."""
    try:
        cron = parse_cron(cron_text)
    except CronError:
        return ()
    found: list[dt.datetime] = []
    moment = monday - dt.timedelta(minutes=1)  # next_slot is strictly after
    while len(found) < MAX_SLOTS:
        try:
            moment = cron.next_slot(moment)
        except CronError:
            break
        if moment >= monday + WEEK:
            break
        found.append(moment)
    return tuple(found)


def slots(cron_text: str, since: dt.datetime, until: dt.datetime) -> list[dt.datetime]:
    """The schedule's slots from `since` to before `until` (none for a broken line)."""
    found: list[dt.datetime] = []
    monday = weeks(since, 1)[0].start
    while monday < until:
        found += [slot for slot in _week_slots(cron_text, monday) if since <= slot < until]
        monday += WEEK
    return found


@dataclass(frozen=True)
class Ran:
    job: str
    at: dt.datetime
    ok: bool


@dataclass(frozen=True)
class OnTime:
    due: int = 0
    on_time: int = 0
    failed: int = 0  # a run started in time and failed
    missed: int = 0  # no run within GRACE of the slot

    @property
    def share(self) -> float | None:
        return share(self.on_time, self.due)


def ran(snapshot: StateSnapshot) -> list[Ran]:
    """Every run the state branch records: daily runs and deep dives, and digests (at the end of the
    window they covered, ok when posted)."""
    runs = [
        Ran(report.kind, report.started_at, report.failed is None)
        for report in snapshot.runs.values()
        if report.kind != "bootstrap"
    ]
    runs += [Ran("digest", record.until, record.posted) for record in snapshot.digests.values()]
    return runs


def on_time(
    schedules: Iterable[tuple[str, str]], runs: Sequence[Ran], since: dt.datetime, until: dt.datetime
) -> OnTime:
    """The slots of each (job, cron line) from `since` to an hour before `until`, and how they went."""
    due = done = failed = 0
    for job, cron in schedules:
        mine = [run for run in runs if run.job == job]
        for slot in slots(cron, since, until - GRACE):
            near = [run for run in mine if slot <= run.at <= slot + GRACE]
            due += 1
            done += any(run.ok for run in near)
            failed += bool(near) and not any(run.ok for run in near)
    return OnTime(due, done, failed, due - done - failed)


# --- the review queue ----------------------------------------------------------------------------


def opened(record: DecisionRecord) -> dt.datetime | None:
    """When the lesson's review PR opened (None for a lesson never sent to review)."""
    return record.review_opened_at or (record.at if record.state == "in-review" else None)


def waiting_at(records: Iterable[DecisionRecord], moment: dt.datetime) -> list[dt.timedelta]:
    """How long each lesson waiting for review at `moment` had waited by then."""
    waits = []
    for record in records:
        since = opened(record)
        closed = record.settled_at if record.state == "settled" else None
        if since is not None and since <= moment and (closed is None or closed > moment):
            waits.append(moment - since)
    return waits


def days(wait: dt.timedelta) -> int:
    return max(0, wait.days)


# --- decisions -----------------------------------------------------------------------------------


def lessons_in(records: Iterable[DecisionRecord], week: Week) -> list[DecisionRecord]:
    return [r for r in records if r.kind in LESSON_KINDS and week.holds(r.at)]


DECIDED = ("merged by the daily run", "sent to review", "declined", "duplicate")


def decided_counts(lessons: Sequence[DecisionRecord]) -> dict[str, int]:
    """As `homeostat metrics` splits them: merged by the daily run (no review PR), sent to review,
    and the lessons declined or found duplicates."""
    counts = (
        sum(r.review_opened_at is None and r.outcome in ("merged", "updated") for r in lessons),
        sum(r.review_opened_at is not None for r in lessons),
        sum(r.outcome == "declined" for r in lessons),
        sum(r.outcome == "duplicate" for r in lessons),
    )
    return dict(zip(DECIDED, counts, strict=True))


def review_hours(records: Iterable[DecisionRecord], week: Week) -> float | None:
    """The median hours from a review PR opening to its settling, of the reviews settled that week."""
    settled = [r for r in records if r.state == "settled" and week.holds(r.settled_at)]
    return decision_metrics(settled).review_hours_median if settled else None


# --- cost and use --------------------------------------------------------------------------------


def week_cost(snapshot: StateSnapshot, week: Week) -> float:
    return round(sum(r.cost.usd for r in snapshot.runs.values() if week.holds(r.started_at)), 4)


def capped_in(snapshot: StateSnapshot, week: Week) -> int:
    return sum(r.capped is not None for r in snapshot.runs.values() if week.holds(r.started_at))


def scheduled_runs(crons: Iterable[str], week: Week) -> int:
    """Runs the schedules start in the whole week, each with its own spending cap."""
    return sum(len(slots(cron, week.start, week.end)) for cron in crons)


def sessions_in(events: Iterable[Event], week: Week) -> tuple[int, int]:
    """(sessions served, prompt matches) in this machine's log."""
    sessions = prompts = 0
    for event in events:
        if event.kind == "injection" and week.holds(event.at):
            started = event.data.get("source") == "session-start"
            sessions += started
            prompts += not started
    return sessions, prompts
