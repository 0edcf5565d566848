"""KB metrics from the state branch and the local event log: one pure computation, which
`homeostat metrics` prints and the dashboard will draw.

- merged without a person: the share of decided lessons the daily run merged itself (no review PR);
- calibration: per confidence band, how often the lessons sent to review were merged by a reviewer
  (a band whose reviews are nearly always merged could merge without one);
- review latency: hours from a review PR opening to its settling;
- reach: sessions served, prompt matches, distinct rules served, members syncing (`core.state.sync.is_syncing`,
  the dashboard's definition too) out of every member;
- cost per step: model calls, tokens and dollars by agent (this machine's log) and by run (the branch);
- turns: the share that looked something up and the share that credited what it used; the distinct
  rules and sections credited; accepted rules served but never credited.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from homeostat.core.events import MODEL_CALL, Event
from homeostat.core.measure.repeats import RepeatSummary, repeat_summary
from homeostat.core.state.branch import DecisionRecord, StateSnapshot
from homeostat.core.state.sync import SYNCING_HOURS, counted_members, is_syncing
from homeostat.core.text import camel_case

BAND_WIDTH = 10
LESSON_KINDS = ("new", "update", "review-thread", "doc")


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class Band:
    band: str
    reviewed: int
    merged: int

    @property
    def share(self) -> float | None:
        return share(self.merged, self.reviewed)


@dataclass(frozen=True)
class Decisions:
    decided: int = 0
    auto_merged: int = 0
    sent_to_review: int = 0
    calibration: tuple[Band, ...] = ()
    reviews_settled: int = 0
    review_hours_median: float | None = None
    review_hours_p90: float | None = None

    @property
    def merged_without_a_person(self) -> float | None:
        return share(self.auto_merged, self.auto_merged + self.sent_to_review)


@dataclass(frozen=True)
class Usage:
    sessions: int = 0
    prompt_matches: int = 0
    rules_served: int = 0
    turns: int = 0
    turns_looked_up: int = 0
    turns_credited: int = 0
    rules_credited: int = 0
    sections_credited: int = 0
    served_never_credited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    name: str
    calls: int
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0


@dataclass(frozen=True)
class Metrics:
    since: dt.datetime
    decisions: Decisions
    usage: Usage
    steps: tuple[Step, ...]
    runs: tuple[Step, ...]
    members_syncing: int  # heartbeat within core.state.sync.SYNCING_WITHIN
    members: int  # team.members, and any handle with a heartbeat that it no longer lists
    repeats: RepeatSummary | None = (
        None  # review lessons that re-taught a rule in force (core.measure.repeats)
    )

    def to_data(self) -> dict[str, object]:
        """The JSON form: camelCase keys, shares as fractions (None when there is nothing to divide).
        `repeatLessonRate` is repeats over review lessons decided in the window; `repeats` its counts."""
        decisions = asdict(self.decisions)
        decisions["mergedWithoutAPerson"] = self.decisions.merged_without_a_person
        decisions["calibration"] = [{**asdict(b), "share": b.share} for b in self.decisions.calibration]
        usage = asdict(self.usage)
        usage["lookedUpShare"] = share(self.usage.turns_looked_up, self.usage.turns)
        usage["creditedShare"] = share(self.usage.turns_credited, self.usage.turns)
        data = _camel(
            {
                "since": self.since.isoformat(),
                "decisions": decisions,
                "usage": usage,
                "costByStep": [asdict(s) for s in self.steps],
                "costByRun": [asdict(r) for r in self.runs],
                "membersSyncing": self.members_syncing,
                "members": self.members,
            }
        )
        if self.repeats is not None:
            data["repeatLessonRate"] = self.repeats.rate
            data["repeats"] = self.repeats.to_data()
        return data


def _camel(value: object) -> dict[str, object]:
    def walk(item: object) -> object:
        if isinstance(item, dict):
            return {camel_case(k): walk(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [walk(v) for v in item]
        return item

    result = walk(value)
    assert isinstance(result, dict)
    return result


# --- the parts ---------------------------------------------------------------------------------------


def _band(confidence: int) -> str:
    low = min(confidence // BAND_WIDTH * BAND_WIDTH, 100 - BAND_WIDTH)
    high = 100 if low == 100 - BAND_WIDTH else low + BAND_WIDTH - 1
    return f"{low}-{high}"


def decision_metrics(records: Sequence[DecisionRecord]) -> Decisions:
    lessons = [r for r in records if r.kind in LESSON_KINDS]
    auto = [r for r in lessons if r.review_opened_at is None and r.outcome in ("merged", "updated")]
    reviewed = [r for r in lessons if r.review_opened_at is not None]
    settled = [r for r in reviewed if r.state == "settled"]
    bands: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in settled:
        counts = bands[_band(record.confidence)]
        counts[0] += 1
        counts[1] += record.outcome == "merged"
    hours = sorted(
        (r.settled_at - r.review_opened_at).total_seconds() / 3600
        for r in settled
        if r.settled_at is not None and r.review_opened_at is not None
    )
    return Decisions(
        decided=len(lessons),
        auto_merged=len(auto),
        sent_to_review=len(reviewed),
        calibration=tuple(Band(b, n, m) for b, (n, m) in sorted(bands.items())),
        reviews_settled=len(settled),
        review_hours_median=statistics.median(hours) if hours else None,
        review_hours_p90=hours[min(len(hours) - 1, int(len(hours) * 0.9))] if hours else None,
    )


def _ids(value: object) -> list[str]:
    return [part for part in str(value or "").split(",") if part]


def usage_metrics(events: Iterable[Event], accepted: frozenset[str] | None = None) -> Usage:
    """From injection and turn-usage events; `accepted` (the KB's accepted rule ids) keeps the
    never-credited list to rules that still exist."""
    sessions = prompt_matches = turns = looked = credited_turns = 0
    served: set[str] = set()
    credited: set[str] = set()
    for event in events:
        data = event.data
        if event.kind == "injection":
            sessions += data.get("source") == "session-start"
            prompt_matches += data.get("source") != "session-start"
            served.update(_ids(data.get("ids")))
        elif event.kind == "turn-usage":
            ids = _ids(data.get("credited"))
            turns += 1
            looked += bool(data.get("lookedUp"))
            credited_turns += bool(ids)
            credited.update(ids)
    rules = {i for i in credited if "#" not in i}
    never = sorted(i for i in served - credited if accepted is None or i in accepted)
    return Usage(
        sessions=sessions,
        prompt_matches=prompt_matches,
        rules_served=len(served),
        turns=turns,
        turns_looked_up=looked,
        turns_credited=credited_turns,
        rules_credited=len(rules),
        sections_credited=len(credited - rules),
        served_never_credited=tuple(never),
    )


def step_costs(events: Iterable[Event]) -> tuple[Step, ...]:
    """Model calls by agent (curator, judge, consolidator, …) from this machine's log."""
    rows: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
    for event in events:
        if event.kind != MODEL_CALL:
            continue
        row = rows[str(event.data.get("agent") or "unknown")]
        row[0] += 1
        row[1] += int(event.data.get("input_tokens") or 0)
        row[2] += int(event.data.get("output_tokens") or 0)
        row[3] += float(event.data.get("cost_usd") or 0.0)
    return tuple(Step(a, int(r[0]), int(r[1]), int(r[2]), round(r[3], 4)) for a, r in sorted(rows.items()))


def run_costs(snapshot: StateSnapshot, since: dt.datetime) -> tuple[Step, ...]:
    """Runs and their dollars by kind (daily, deep-dive, bootstrap) from the state branch."""
    rows: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for report in snapshot.runs.values():
        if report.started_at >= since:
            rows[report.kind][0] += 1
            rows[report.kind][1] += report.cost.usd
    return tuple(Step(kind, int(r[0]), usd=round(r[1], 4)) for kind, r in sorted(rows.items()))


def compute_metrics(
    snapshot: StateSnapshot,
    events: Sequence[Event],
    now: dt.datetime,
    days: int,
    accepted: frozenset[str] | None = None,
    members: Sequence[str] = (),
) -> Metrics:
    """`members`: team.members' handles, so a member with no heartbeat yet counts as not syncing."""
    since = now - dt.timedelta(days=days)
    recent = [e for e in events if e.at >= since]
    beats = {handle.lower(): beat.at for handle, beat in snapshot.heartbeats.items()}
    counted = counted_members(members, snapshot.heartbeats)
    return Metrics(
        since=since,
        decisions=decision_metrics([r for r in snapshot.records_since(since) if r.at >= since]),
        usage=usage_metrics(recent, accepted),
        steps=step_costs(recent),
        runs=run_costs(snapshot, since),
        members_syncing=sum(is_syncing(beats.get(handle.lower()), now) for handle in counted),
        members=len(counted),
        repeats=repeat_summary(snapshot.repeat_records(), snapshot.records(), since),
    )


# --- text ----------------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def render_metrics(m: Metrics) -> str:
    d, u = m.decisions, m.usage
    lines = [f"Homeostat metrics since {m.since.date().isoformat()}", ""]
    lines.append(
        f"Decisions: {d.decided}; merged without a person {_pct(d.merged_without_a_person)} "
        f"({d.auto_merged} merged by the daily run, {d.sent_to_review} sent to review)"
    )
    if d.calibration:
        bands = ", ".join(f"{b.band}: {_pct(b.share)} of {b.reviewed}" for b in d.calibration)
        lines.append(f"Calibration (review decisions merged, by confidence band): {bands}")
    if d.review_hours_median is not None and d.review_hours_p90 is not None:
        lines.append(
            f"Review latency: median {d.review_hours_median:.1f} h, p90 {d.review_hours_p90:.1f} h "
            f"over {d.reviews_settled} settled reviews"
        )
    lines.append(
        f"Reach: {u.sessions} sessions, {u.prompt_matches} prompt matches, {u.rules_served} distinct rules "
        f"served; {m.members_syncing} of {m.members} members synced in the last {SYNCING_HOURS} hours"
    )
    lines.append(
        f"Turns: {u.turns}; looked something up {_pct(share(u.turns_looked_up, u.turns))}, credited "
        f"{_pct(share(u.turns_credited, u.turns))}; {u.rules_credited} rules and {u.sections_credited} "
        "sections credited"
    )
    if u.served_never_credited:
        shown = ", ".join(u.served_never_credited[:10])
        rest = len(u.served_never_credited) - 10
        lines.append(f"Served but never credited: {shown}" + (f" and {rest} more" if rest > 0 else ""))
    if m.repeats is not None:
        lines.extend(repeat_lines(m.repeats))
    for step in m.steps:
        lines.append(
            f"Cost of {step.name}: {step.calls} model calls, {step.input_tokens} input and "
            f"{step.output_tokens} output tokens, ${step.usd:.2f}"
        )
    for run in m.runs:
        lines.append(f"Cost of {run.name} runs: {run.calls} runs, ${run.usd:.2f}")
    return "\n".join(lines) + "\n"


def repeat_lines(r: RepeatSummary) -> list[str]:
    """The repeat-lesson rate, and the most re-taught rules with what each calls for."""
    lines = [
        f"Repeat-lesson rate: {_pct(r.rate)} ({r.repeats} of {r.review_lessons} review lessons re-taught "
        "a rule already in force)"
    ]
    verdicts = {
        "rewrite": "served, so rewrite it",
        "selection": "never served",
        "unknown": "usage not shared",
    }
    for rule in r.rules[:10]:
        lines.append(f"  {rule.rule_id} ({rule.area}): re-taught {rule.times}x; {verdicts[rule.verdict]}")
    if r.weeks:
        lines.append("  by week: " + ", ".join(f"{week} {n}" for week, n in r.weeks))
    return lines
