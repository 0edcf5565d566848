"""Is it working? The overview's six tiles, and the weekly charts the Overview, Automation and
Performance pages draw.

Each tile answers one question with a number, a verdict in words (never colour alone) and a few
lines: are the scheduled runs on time, how old is the review queue, how often reviewers re-teach
a lesson the KB already had, how much merges without a person, what this week cost against the
spending cap, and who is syncing. A KB with nothing to judge yet gets "quiet" tiles that say what
comes next, not alarms.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from homeostat.core.dashboard import pages
from homeostat.core.dashboard.trends import (
    DECIDED,
    Line,
    OnTime,
    Trend,
    Week,
    capped_in,
    days,
    decided_counts,
    first,
    kb_started,
    lessons_in,
    on_time,
    opened,
    per_week,
    ran,
    review_hours,
    scheduled_runs,
    sessions_in,
    waiting_at,
    week_cost,
    weeks,
)
from homeostat.core.measure.metrics import LESSON_KINDS, Metrics, decision_metrics
from homeostat.core.state.sync import SYNCING_HOURS

Status = Literal["ok", "attention", "quiet", "info"]
VERDICTS: dict[Status, str] = {
    "ok": "on track",
    "attention": "needs a look",
    "quiet": "",  # nothing to judge yet: the value and lines say why
    "info": "",  # a number to read, with no target to judge it by
}
# The repeat-lesson rate, as `homeostat metrics --format json` reports it: the share of review lessons
# that re-taught a rule already in force (`core.measure.repeats`). A Metrics without it reads "not measured".
REPEAT_KEY = "repeatLessonRate"


@dataclass(frozen=True)
class Tile:
    key: str
    title: str
    value: str
    status: Status
    lines: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # what needs a look, shown first and marked
    link: str = ""
    trend: Trend | None = None

    @property
    def verdict(self) -> str:
        return VERDICTS[self.status]

    @property
    def numeric(self) -> bool:
        """A number to show large, not words ("not measured yet")."""
        return not self.value[:1].isalpha()


@dataclass(frozen=True)
class Span:
    """The weeks a page draws, and when the KB began (weeks before it have no value)."""

    weeks: tuple[Week, ...]
    start: dt.datetime | None


def span(inputs: pages.Inputs) -> Span:
    return Span(weeks(inputs.now), kb_started(inputs.snapshot, inputs.set_up))


def _jobs(inputs: pages.Inputs) -> list[tuple[str, str]]:
    schedules = inputs.config.agents.schedules
    return [("daily", schedules.daily), ("deep-dive", schedules.deep_dive), ("digest", schedules.digest)]


def _costly(inputs: pages.Inputs) -> list[str]:
    """The schedules whose runs call a model, each run under `agents.maxCostUsd` (the digest calls none)."""
    schedules = inputs.config.agents.schedules
    return [schedules.daily, schedules.deep_dive]


# --- the weekly charts ---------------------------------------------------------------------------


def on_time_in(inputs: pages.Inputs, week: Week, start: dt.datetime | None) -> OnTime | None:
    if start is None:
        return None
    since, until = max(week.start, start), min(week.end, inputs.now)
    return on_time(_jobs(inputs), ran(inputs.snapshot), since, until) if since < until else None


def runs_share(inputs: pages.Inputs, s: Span) -> Trend:
    def share(week: Week) -> float | None:
        counted = on_time_in(inputs, week, s.start)
        return None if counted is None else counted.share

    return Trend(
        "Scheduled runs on time, per week",
        "Share on time",
        "%",
        s.weeks,
        (Line("on time", per_week(s.weeks, s.start, share)),),
        empty="no scheduled run was due yet",
        high=1.0,
    )


def runs_counts(inputs: pages.Inputs, s: Span) -> Trend:
    counted = [on_time_in(inputs, week, s.start) for week in s.weeks]

    def line(name: str, field: str) -> Line:
        return Line(
            name, tuple(None if c is None or not c.due else float(getattr(c, field)) for c in counted)
        )

    return Trend(
        "Scheduled runs per week: on time, failed, missed",
        "Scheduled runs",
        "",
        s.weeks,
        (
            line("on time", "on_time"),
            line("failed", "failed"),
            line("missed (no run within the hour)", "missed"),
        ),
        empty="no scheduled run was due yet",
    )


def _week_end(inputs: pages.Inputs, week: Week) -> dt.datetime:
    return min(week.end, inputs.now)


def queue_age(inputs: pages.Inputs, s: Span) -> Trend:
    records = inputs.snapshot.records()
    limit = inputs.config.notifications.review_overdue_days
    start = first(opened(r) for r in records)  # before the first review there is no wait to tell

    def oldest(week: Week) -> float:
        return float(max((days(w) for w in waiting_at(records, _week_end(inputs, week))), default=0))

    return Trend(
        "Oldest review wait at each week's end",
        "Days waiting",
        "days",
        s.weeks,
        (Line("oldest wait", per_week(s.weeks, start, oldest)),),
        reference=Line(f"overdue after {limit} days", per_week(s.weeks, s.start, lambda _: float(limit))),
        empty="no lesson was sent to review yet",
    )


def queue_size(inputs: pages.Inputs, s: Span) -> Trend:
    records = inputs.snapshot.records()
    limit = dt.timedelta(days=inputs.config.notifications.review_overdue_days)
    start = first(opened(r) for r in records)

    def count(overdue: bool) -> Line:
        def value(week: Week) -> float:
            waits = waiting_at(records, _week_end(inputs, week))
            return float(sum(w > limit for w in waits) if overdue else len(waits))

        return Line("overdue" if overdue else "waiting", per_week(s.weeks, start, value))

    return Trend(
        "Lessons waiting for review at each week's end",
        "Lessons waiting",
        "",
        s.weeks,
        (count(False), count(True)),
        empty="no lesson was sent to review yet",
    )


def decided(inputs: pages.Inputs, s: Span) -> Trend:
    records = inputs.snapshot.records()
    start = first(r.at for r in records if r.kind in LESSON_KINDS)
    counts = {week: decided_counts(lessons_in(records, week)) for week in s.weeks}

    def line(name: str) -> Line:
        return Line(name, per_week(s.weeks, start, lambda week: float(counts[week][name])))

    return Trend(
        "Lessons decided per week",
        "Lessons decided",
        "",
        s.weeks,
        tuple(line(name) for name in DECIDED),
        empty="the daily run decided nothing yet",
    )


def merged_share(inputs: pages.Inputs, s: Span) -> Trend:
    records = inputs.snapshot.records()

    def value(week: Week) -> float | None:
        return decision_metrics(lessons_in(records, week)).merged_without_a_person

    return Trend(
        "Lessons merged without a person, per week",
        "Share of the lessons decided",
        "%",
        s.weeks,
        (Line("merged without a person", per_week(s.weeks, s.start, value)),),
        empty="no lesson was decided yet",
        high=1.0,
    )


def latency(inputs: pages.Inputs, s: Span) -> Trend:
    records = inputs.snapshot.records()
    return Trend(
        "Median review latency of the reviews settled each week",
        "Hours from PR to decision",
        "h",
        s.weeks,
        (Line("median review latency", per_week(s.weeks, s.start, lambda w: review_hours(records, w))),),
        empty="no review was settled yet",
    )


def cost(inputs: pages.Inputs, s: Span) -> Trend:
    cap = inputs.config.agents.max_cost_usd
    crons = _costly(inputs)
    start = first(r.started_at for r in inputs.snapshot.runs.values())
    return Trend(
        "Cost of the runs per week, against the cap",
        "US dollars",
        "$",
        s.weeks,
        (Line("cost of the runs", per_week(s.weeks, start, lambda w: week_cost(inputs.snapshot, w))),),
        reference=Line(
            "cap: agents.maxCostUsd × scheduled runs",
            per_week(s.weeks, s.start, lambda w: cap * scheduled_runs(crons, w)),
        ),
        empty="no run was recorded yet",
    )


def sessions(inputs: pages.Inputs, s: Span) -> Trend:
    counted = {week: sessions_in(inputs.events, week) for week in s.weeks}
    start = first(e.at for e in inputs.events if e.kind == "injection")

    def line(name: str, index: int) -> Line:
        return Line(name, per_week(s.weeks, start, lambda week: float(counted[week][index])))

    return Trend(
        "Sessions served and prompt matches per week (this machine's log)",
        "Count",
        "",
        s.weeks,
        (line("sessions served", 0), line("prompt matches", 1)),
        empty="no session was served on this machine yet",
    )


# --- the tiles -----------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def runs_tile(inputs: pages.Inputs, s: Span, rows: Sequence[pages.Liveness]) -> Tile:
    this = on_time_in(inputs, s.weeks[-1], s.start) or OnTime()
    last = on_time_in(inputs, s.weeks[-2], s.start) if len(s.weeks) > 1 else None
    flags = [f"{row.job} is late" for row in rows if row.late]
    if this.failed:
        flags.append(f"{_plural(this.failed, 'run')} failed")
    if this.missed:
        flags.append(f"{this.missed} missed (no run within the hour)")
    lines = ["this week so far" if this.due else "no scheduled run was due yet this week"]
    if last is not None and last.due:
        lines.append(f"last week: {last.on_time} of {last.due}")
    first = pages.first_look(inputs)
    if first is not None:
        lines.append(f"first daily run due {first['daily']}")
    status: Status = "attention" if flags else ("ok" if this.due or (last and last.due) else "quiet")
    value = f"{this.on_time} of {this.due}" if this.due else "–"
    trend = runs_share(inputs, s)
    return Tile("runs", "Runs on time", value, status, tuple(lines), tuple(flags), "#agents", trend)


def queue_tile(inputs: pages.Inputs, s: Span) -> Tile:
    queue = pages.review_queue(inputs)
    limit = inputs.config.notifications.review_overdue_days
    overdue = sum(item.overdue for item in queue)
    flags = (f"{overdue} overdue",) if overdue else ()
    lines = [f"oldest waiting {_plural(queue[0].age_days, 'day')}"] if queue else ["nothing waits for review"]
    lines.append(f"overdue after {_plural(limit, 'day')}")
    trend = queue_age(inputs, s)
    status: Status = "attention" if overdue else ("ok" if queue or trend.has_data else "quiet")
    value = f"{len(queue)} waiting"
    return Tile("queue", "Review queue", value, status, tuple(lines), flags, "/automation", trend)


def repeat_rate(metrics: Metrics) -> tuple[bool, float | None]:
    """(measured, rate): whether `homeostat metrics` reports the repeat-lesson rate, and its value
    (None when it has nothing to divide). Read from its JSON form, the number the command prints."""
    data = metrics.to_data()
    if REPEAT_KEY not in data:
        return False, None
    value = data[REPEAT_KEY]
    return True, float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def repeats_tile(metrics: Metrics, window: int) -> Tile:
    measured, rate = repeat_rate(metrics)
    status: Status = "quiet"
    if not measured:
        value, when = "not measured yet", "the metrics give no repeat-lesson rate"
    elif rate is None:
        value, when = "–", f"no review lesson in the last {window} days"
    else:
        value, when, status = f"{rate:.0%}", f"last {window} days", "info"
    about = "review lessons that re-taught a rule the KB already had"
    link = "/performance" if measured else ""
    return Tile("repeats", "Repeat-lesson rate", value, status, (about, when), link=link)


def merged_tile(inputs: pages.Inputs, s: Span, metrics: Metrics, window: int) -> Tile:
    d = metrics.decisions
    status: Status = "quiet"
    if d.merged_without_a_person is None:
        value = "–"
        lines = (f"no lesson decided in the last {window} days",)
    else:
        value, status = f"{d.merged_without_a_person:.0%}", "info"
        lines = (
            f"last {window} days: {d.auto_merged} merged by the daily run, {d.sent_to_review} sent to review",
        )
    trend = merged_share(inputs, s)
    return Tile("merged", "Merged without a person", value, status, lines, link="/performance", trend=trend)


def cost_tile(inputs: pages.Inputs, s: Span) -> Tile:
    cap = inputs.config.agents.max_cost_usd
    this_week, last_week = s.weeks[-1], s.weeks[-2] if len(s.weeks) > 1 else None
    spent = week_cost(inputs.snapshot, this_week)
    runs = scheduled_runs(_costly(inputs), this_week)
    ceiling = cap * runs
    capped = capped_in(inputs.snapshot, this_week)
    flags = [f"{_plural(capped, 'run')} stopped at the spending cap"] if capped else []
    if spent > ceiling:
        flags.append(f"above the ${ceiling:.2f} the scheduled runs may spend")
    lines = [f"cap ${ceiling:.2f}: {_plural(runs, 'scheduled run')} × ${cap:.2f}"]
    if last_week is not None and s.start is not None and last_week.end > s.start:
        lines.append(f"last week: ${week_cost(inputs.snapshot, last_week):.2f}")
    trend = cost(inputs, s)
    ever = bool(inputs.snapshot.runs)
    status: Status = "attention" if flags else ("ok" if ever else "quiet")
    return Tile(
        "cost", "Cost this week", f"${spent:.2f}", status, tuple(lines), tuple(flags), "/performance", trend
    )


def sync_tile(inputs: pages.Inputs) -> Tile:
    rows = pages.sync_health(inputs)
    syncing = [row.member for row in rows if row.syncing]
    stopped = [row.member for row in rows if row.stopped]
    never = [row.member for row in rows if not row.last]
    flags = (
        (f"not syncing (no heartbeat for {SYNCING_HOURS} hours): {', '.join(stopped)}",) if stopped else ()
    )
    lines = [f"syncing: a heartbeat in the last {SYNCING_HOURS} hours"]
    if never:
        lines.append(f"no heartbeat yet: {', '.join(never)} (a clone sends one when it syncs)")
    if not rows:
        lines = ["homeostat.yaml lists no member (team.members)"]
    status: Status = "attention" if stopped else ("ok" if syncing else "quiet")
    value = f"{len(syncing)} of {len(rows)}"
    return Tile("sync", "Members syncing", value, status, tuple(lines), flags, "/members")


def tiles(inputs: pages.Inputs, window: int = pages.WINDOW_DAYS) -> list[Tile]:
    s = span(inputs)
    metrics = pages.performance(inputs, window)
    return [
        runs_tile(inputs, s, pages.liveness(inputs)),
        queue_tile(inputs, s),
        repeats_tile(metrics, window),
        merged_tile(inputs, s, metrics, window),
        cost_tile(inputs, s),
        sync_tile(inputs),
    ]
