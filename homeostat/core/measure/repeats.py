"""The repeat-lesson rate: review lessons that re-taught a rule the KB already had.

A team adopts Homeostat so reviewers stop teaching agents the same lesson twice. When the daily run's
consolidation finds a review lesson repeats or refines a rule that was in force when the PR was opened,
a reviewer has just taught what the KB knew: `repeat_of` makes the record (kept on the state branch as
`repeats/<member>.json`), and `repeat_summary` counts them per rule, per area and per week for
`homeostat metrics`, the digest, the dashboard, the deep dive and `eval --from-repeats`.

What a repeat says depends on whether the rule had reached the PR author's sessions:
- served, then re-taught: agents were given the rule and did not follow it, so it wants a rewrite;
- never served: the rule was not selected for that work, a selection miss (the touched paths make an
  eval case);
- unknown: the author does not share usage (`team.members[].usage`), so nobody can tell.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from homeostat.core.daily.consolidate import Consolidation
from homeostat.core.daily.lessons import Lesson
from homeostat.core.schema import Rule
from homeostat.core.state.branch import DecisionRecord, Heartbeat, RepeatRecord


def served_ids(heartbeat: Heartbeat | None) -> frozenset[str] | None:
    """The rule ids a member's sessions were served or credited, or None when they share no usage."""
    if heartbeat is None or heartbeat.usage is None:
        return None
    return frozenset(heartbeat.served)


def repeat_of(
    lesson: Lesson,
    consolidation: Consolidation | None,
    rule: Rule | None,
    served: Collection[str] | None,
    now: dt.datetime,
) -> RepeatRecord | None:
    """The record of a review lesson that duplicates or updates `rule`, when the rule was accepted and
    in force (its `created` day on or before the day the PR was opened); None otherwise."""
    if not lesson.from_review or lesson.kind != "new" or consolidation is None or rule is None:
        return None
    if consolidation.action not in ("duplicate", "update") or consolidation.target != rule.id:
        return None
    if rule.meta.status != "accepted" or not rule.meta.adopted:
        return None
    opened = lesson.opened or lesson.created
    if rule.meta.created > opened.astimezone(dt.UTC).date():
        return None
    return RepeatRecord(
        hash=lesson.key,
        member=lesson.member,
        rule_id=rule.id,
        action=consolidation.action,
        area=rule.area,
        repo=lesson.repo,
        url=lesson.url or None,
        paths=tuple(p for p in lesson.paths if p),
        opened_at=opened,
        rule_since=rule.meta.created,
        served=None if served is None else rule.id in served,
        at=now,
    )


# --- counting ---------------------------------------------------------------------------------------


def week_of(moment: dt.datetime) -> str:
    """The ISO week a repeat was recorded in, as `2026-W49`."""
    year, week, _ = moment.astimezone(dt.UTC).isocalendar()
    return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class RuleRepeats:
    """One rule's repeats in the window: how often re-taught, and how often after being served."""

    rule_id: str
    area: str
    times: int
    served: int  # re-taught after the rule reached the author's sessions
    not_served: int  # re-taught though the author's sessions never got it
    unknown: int  # the author shares no usage
    paths: tuple[str, ...]  # the files the re-teaching threads commented on
    urls: tuple[str, ...]  # the re-teaching threads

    @property
    def verdict(self) -> str:
        """`rewrite` (agents were given it and did not follow it), `selection` (it was never given),
        or `unknown`; a rule both served and missed reads as `rewrite`."""
        if self.served:
            return "rewrite"
        if self.not_served:
            return "selection"
        return "unknown"


@dataclass(frozen=True)
class RepeatSummary:
    """Repeats recorded in a window, and the review lessons decided in it (the rate's denominator)."""

    repeats: int
    review_lessons: int
    rules: tuple[RuleRepeats, ...]  # most re-taught first
    areas: tuple[tuple[str, int], ...]
    weeks: tuple[tuple[str, int], ...]  # oldest week first

    @property
    def rate(self) -> float | None:
        return self.repeats / self.review_lessons if self.review_lessons else None

    def to_data(self) -> dict[str, object]:
        """The pinned JSON form under `repeats` in `homeostat metrics --format json`."""
        return {
            "count": self.repeats,
            "reviewLessons": self.review_lessons,
            "rules": [
                {
                    "ruleId": r.rule_id,
                    "area": r.area,
                    "times": r.times,
                    "served": r.served,
                    "notServed": r.not_served,
                    "unknown": r.unknown,
                    "verdict": r.verdict,
                    "paths": list(r.paths),
                }
                for r in self.rules
            ],
            "areas": [{"area": area, "times": n} for area, n in self.areas],
            "weeks": [{"week": week, "times": n} for week, n in self.weeks],
        }


def repeat_summary(
    repeats: Iterable[RepeatRecord], decisions: Iterable[DecisionRecord], since: dt.datetime
) -> RepeatSummary:
    """Repeats recorded since `since`, over the review-thread lessons decided since then."""
    recent = [r for r in repeats if r.at >= since]
    reviewed = sum(1 for d in decisions if d.at >= since and d.kind == "review-thread")
    return RepeatSummary(
        repeats=len(recent),
        review_lessons=max(reviewed, len(recent)),
        rules=rule_repeats(recent),
        areas=tuple(
            sorted(Counter(r.area or "(none)" for r in recent).items(), key=lambda kv: (-kv[1], kv[0]))
        ),
        weeks=tuple(sorted(Counter(week_of(r.at) for r in recent).items())),
    )


def rule_repeats(records: Sequence[RepeatRecord]) -> tuple[RuleRepeats, ...]:
    by_rule: dict[str, list[RepeatRecord]] = defaultdict(list)
    for record in records:
        by_rule[record.rule_id].append(record)
    rules = [
        RuleRepeats(
            rule_id=rule_id,
            area=mine[-1].area,
            times=len(mine),
            served=sum(r.served is True for r in mine),
            not_served=sum(r.served is False for r in mine),
            unknown=sum(r.served is None for r in mine),
            paths=tuple(sorted({p for r in mine for p in r.paths})),
            urls=tuple(dict.fromkeys(r.url for r in mine if r.url)),
        )
        for rule_id, mine in by_rule.items()
    ]
    return tuple(sorted(rules, key=lambda r: (-r.times, r.rule_id)))


# --- eval cases from selection misses ----------------------------------------------------------------

DRAFT_HEADER = """\
# Drafted by `homeostat eval --from-repeats` from the review lessons that re-taught a rule the
# PR author's sessions were never served (selection misses). Review each case (trim `files` to what
# the work really touched), then move the ones you keep into eval/selection.yaml and delete this file.
"""


def draft_cases(
    records: Iterable[RepeatRecord], known: Iterable[tuple[tuple[str, ...], tuple[str, ...]]] = ()
) -> tuple[list[dict[str, object]], int]:
    """Eval cases (the `eval/selection.yaml` form) from never-served repeats, one per rule and set of
    touched paths, leaving out any whose files and expected rule a case already has; and how many
    misses had no recorded path (so no case can be drafted for them)."""
    seen = {(tuple(sorted(files)), tuple(sorted(expect))) for files, expect in known}
    cases: list[dict[str, object]] = []
    pathless = 0
    for record in sorted(records, key=lambda r: (r.rule_id, r.at, r.hash)):
        if record.served is not False:
            continue
        if not record.paths:
            pathless += 1
            continue
        key = (tuple(sorted(record.paths)), (record.rule_id,))
        if key in seen:
            continue
        seen.add(key)
        case: dict[str, object] = {"name": f"re-taught {record.rule_id} ({week_of(record.at)})"}
        if record.repo:
            case["repo"] = record.repo
        if record.url:
            case["source"] = record.url
        case["files"] = list(record.paths)
        case["expect"] = [record.rule_id]
        cases.append(case)
    return cases, pathless
