"""A member's flags past `scoring.autoMerge.flags` in one run wait for a person (issue 29): one agent
under a prompt injection cannot take the whole KB out of every agent's context unread."""

from __future__ import annotations

import datetime as dt

import pytest
from kbfactory import example_files
from lessonkit import taught_lesson
from pydantic import ValidationError

from homeostat.core.config import Config
from homeostat.core.daily.confidence import score_confidence
from homeostat.core.daily.decide import Checks, Decision, decide
from homeostat.core.daily.flag_cap import cap_flags, flags_merged_before
from homeostat.core.daily.lessons import Lesson
from homeostat.core.kb import load_kb
from homeostat.core.state.branch import (
    Cost,
    DecisionRecord,
    DecisionsFile,
    Failed,
    LessonSource,
    Notice,
    RunReport,
    StateSnapshot,
)

T = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)


def config_with(flags: int | None = None, team_flags: int | None = None) -> Config:
    config = load_kb(example_files()).require_config()
    update = {
        key: value for key, value in (("flags", flags), ("team_flags", team_flags)) if value is not None
    }
    if not update:
        return config
    auto = config.scoring.auto_merge.model_copy(update=update)
    return config.model_copy(update={"scoring": config.scoring.model_copy(update={"auto_merge": auto})})


def flag(member: str, target: str) -> Lesson:
    return taught_lesson(
        key=f"{member}-{target}", kind="flag", member=member, originator=member, target=target
    )


def decided(
    lessons: list[Lesson], config: Config, checks: Checks | None = None
) -> list[tuple[Lesson, Decision]]:
    """Each lesson with what `decide` makes of it alone."""
    return [(x, decide(x, score_confidence(x, config), checks or Checks(), config)) for x in lessons]


def verdicts(decisions: list[Decision]) -> list[str]:
    return [d.verdict for d in decisions]


def test_the_first_three_of_a_members_flags_merge_and_the_rest_wait_with_the_reason() -> None:
    config = config_with(team_flags=10)  # the team's cap is read on its own below
    lessons = [flag("bo", f"rule-{i}") for i in range(5)] + [flag("cy", "rule-9")]
    capped = cap_flags(decided(lessons, config), {}, config)
    assert verdicts(capped) == ["merge", "merge", "merge", "review", "review", "merge"]
    assert capped[3].reason == (
        "bo flagged 5 rules today (UTC): more than scoring.autoMerge.flags (3) take rules out of every"
        " agent's context only after a person reads them"
    )
    assert not capped[3].needs_judge


def test_the_default_is_three_and_a_negative_cap_is_refused() -> None:
    assert config_with().scoring.auto_merge.flags == 3
    assert config_with().scoring.auto_merge.team_flags == 3
    with pytest.raises(ValidationError):
        config_with().scoring.auto_merge.model_validate({"flags": -1})
    with pytest.raises(ValidationError):
        config_with().scoring.auto_merge.model_validate({"teamFlags": -1})


def test_the_teams_flags_together_dispute_at_most_team_flags_rules_whoever_flagged_them() -> None:
    """One account can write flags onto every member's candidates branch: the team's cap bounds it.
    Rules count once (two members flagging one rule use one), and the day's earlier flags count."""
    config = config_with()
    lessons = [flag("ana", "rule-0"), flag("bo", "rule-1"), flag("bo", "rule-0"), flag("cy", "rule-2")]
    lessons += [flag("cy", "rule-3"), flag("ana", "rule-4")]
    capped = cap_flags(decided(lessons, config), {}, config)
    assert verdicts(capped) == ["merge", "merge", "merge", "merge", "review", "review"]
    assert capped[4].reason == (
        "the team's flags named 5 rules today (UTC): more than scoring.autoMerge.teamFlags (3) take rules"
        " out of every agent's context only after a person reads them"
    )
    earlier = cap_flags(decided([flag("cy", "rule-7")], config), {"ana": {"a", "b"}, "bo": {"c"}}, config)
    assert verdicts(earlier) == ["review"]
    off = config_with(team_flags=0)
    assert verdicts(cap_flags(decided([flag("cy", "rule-7")], off), {}, off)) == ["review"]


def test_flags_sent_to_a_person_or_declined_and_other_lessons_do_not_use_up_the_cap() -> None:
    config = config_with()
    held = flag("bo", "safety-rule")
    risky = flag("bo", "other-rule")
    merging = [flag("bo", f"rule-{i}") for i in range(3)]
    new = taught_lesson(key="new", member="bo")
    pairs = [
        (held, Decision("review", "a flag on safety-rule would take a rule … out of every agent's context")),
        *decided([risky], config, Checks(risky=("a pipe to a shell",))),
        (new, Decision("merge", "confidence 80 ≥ 70", needs_judge=True)),
        *decided(merging, config),
    ]
    capped = cap_flags(pairs, {}, config)
    assert verdicts(capped) == ["review", "decline", "merge", "merge", "merge", "merge"]
    assert capped[:3] == [pair[1] for pair in pairs[:3]]


def test_flags_zero_sends_every_flag_to_a_person() -> None:
    config = config_with(0)
    capped = cap_flags(decided([flag("bo", "use-theme-spacing")], config), {}, config)
    assert capped == [
        Decision(
            "review",
            "scoring.autoMerge.flags is 0: a flag takes use-theme-spacing out of every agent's context only"
            " after a person reads it",
        )
    ]


def test_flags_a_killed_run_merged_count_against_the_run_that_finishes_it() -> None:
    config = config_with(team_flags=10)
    lessons = [flag("Bo", "rule-3"), flag("bo", "rule-0"), flag("cy", "rule-9")]
    capped = cap_flags(decided(lessons, config), {"bo": {"rule-0", "rule-1", "rule-2"}}, config)
    assert verdicts(capped) == ["review", "merge", "merge"]
    assert capped[0].reason.startswith("Bo flagged 4 rules today (UTC):")


def test_a_second_flag_on_a_rule_the_member_already_disputes_takes_no_more_out() -> None:
    config = config_with()
    lessons = [flag("bo", "rule-0"), flag("bo", "rule-1"), flag("bo", "rule-2"), flag("bo", "rule-3")]
    again = flag("bo", "rule-0").with_changes(key="bo-rule-0-again", reason="still wrong")
    capped = cap_flags(decided([*lessons[:3], again, lessons[3]], config), {}, config)
    assert verdicts(capped) == ["merge", "merge", "merge", "merge", "review"]
    assert capped[4].reason.startswith("bo flagged 4 rules today (UTC):")


def record(rule_id: str, at: dt.datetime, *, member: str = "bo", reviewed: bool = False) -> DecisionRecord:
    """A flag's record as the daily run writes it once the rule is disputed."""
    return DecisionRecord(
        hash=f"h-{member}-{rule_id}",
        member=member,
        kind="flag",
        title=rule_id,
        rule_id=rule_id,
        source=LessonSource(type="manual"),
        outcome="disputed",
        state="settled",
        confidence=60,
        review_opened_at=at - dt.timedelta(days=1) if reviewed else None,
        settled_at=at,
        at=at,
    )


def report(run_id: str, started: dt.datetime, *, failed: bool = False, overlap: bool = False) -> RunReport:
    return RunReport(
        run_id=run_id,
        kind="daily",
        started_at=started,
        finished_at=started + dt.timedelta(minutes=5),
        duration_seconds=300,
        notices=(Notice(kind="overlap", message="another run"),) if overlap else (),
        failed=Failed(since=started, reason="stopped") if failed else None,
        cost=Cost(usd=0, estimated=False),
    )


def test_a_flag_on_a_rule_already_disputed_takes_nothing_out_and_uses_no_cap() -> None:
    """A disputed rule is served to no agent already (someone else's flag, or a dispute waiting for a
    reviewer): a flag on it adds a voice to its dispute and takes nothing more out of context."""
    config = config_with()
    lessons = [flag("bo", "already-1"), flag("bo", "already-2"), *(flag("bo", f"rule-{i}") for i in range(4))]
    capped = cap_flags(decided(lessons, config), {}, config, disputed={"already-1", "already-2"})
    assert verdicts(capped) == ["merge", "merge", "merge", "merge", "merge", "review"]
    assert capped[5].reason.startswith("bo flagged 4 rules today (UTC):")


def test_the_flags_merged_unread_since_the_last_finished_run_ended_are_this_runs() -> None:
    day = dt.timedelta(days=1)
    records = [
        record("yesterdays", T - day + dt.timedelta(minutes=2)),  # the finished run's own
        record("killed-1", T + dt.timedelta(minutes=3)),  # a run killed after its daily PR merged
        record("killed-2", T + dt.timedelta(minutes=3)),
        record("reviewed", T + dt.timedelta(minutes=3), reviewed=True),  # a reviewer merged it
        record("cys", T + dt.timedelta(minutes=3), member="cy"),
    ]
    runs = {
        "finished": report("finished", T - day),
        "failed": report("failed", T, failed=True),  # its journal was finished by the next run
        "aside": report("aside", T + dt.timedelta(minutes=1), overlap=True),
    }
    files = {
        member: DecisionsFile(member=member, records=tuple(r for r in records if r.member == member))
        for member in ("bo", "cy")
    }
    snapshot = StateSnapshot(decisions=files, runs=runs)
    assert flags_merged_before(snapshot, T + day) == {"bo": {"killed-1", "killed-2"}, "cy": {"cys"}}
    assert flags_merged_before(StateSnapshot(decisions=files), T + day) == {
        "bo": {"yesterdays", "killed-1", "killed-2"},
        "cy": {"cys"},
    }


def test_a_run_started_by_hand_later_that_day_shares_the_days_cap() -> None:
    """An agent holding its developer's token can dispatch the daily workflow again and again: the
    flags merged unread by a finished run earlier the same UTC day count against the next run's cap,
    and yesterday's do not."""
    morning = T.replace(hour=6, minute=0)
    records = [
        record("yesterdays", morning - dt.timedelta(hours=20)),
        record("mornings-1", morning + dt.timedelta(minutes=2)),
        record("mornings-2", morning + dt.timedelta(minutes=2)),
    ]
    snapshot = StateSnapshot(
        decisions={"bo": DecisionsFile(member="bo", records=tuple(records))},
        runs={"morning": report("morning", morning)},
    )
    assert flags_merged_before(snapshot, morning + dt.timedelta(hours=3)) == {
        "bo": {"mornings-1", "mornings-2"}
    }
    assert flags_merged_before(snapshot, morning + dt.timedelta(days=1)) == {}
