"""What settle makes of a review or dispute PR a person merged (homeostat.runs.daily.settle): the
merge was read by a second person, or its rule is disputed, or the team had nobody else to ask."""

from __future__ import annotations

import datetime as dt

import pytest

from homeostat.core.config import Config
from homeostat.core.hosts import PullInfo, PullState, RepoRef
from homeostat.core.review_approval import Verdict, approval_verdict
from homeostat.core.state.branch import (
    DecisionKind,
    DecisionRecord,
    DecisionsFile,
    LessonSource,
    PullRef,
    StateSnapshot,
    parse_state,
    state_files,
)
from homeostat.runs.daily.recover import disputes_owed
from homeostat.runs.daily.settle import _merged

NOW = dt.datetime(2026, 12, 6, 6, tzinfo=dt.UTC)
HEAD = "c" * 40
REPO = RepoRef("github", "example", "kb")
UNREAD = "no approval by a team member who wrote none of its lessons (bo wrote them)"


def team(*handles: str) -> Config:
    return Config.model_validate({"team": {"members": [{"handle": h} for h in handles]}})


def waiting(kind: DecisionKind = "review-thread", rule_id: str | None = "billing-refunds") -> DecisionRecord:
    return DecisionRecord(
        hash=f"h-{kind}",
        member="bo",
        kind=kind,
        title="Refunds",
        rule_id=rule_id,
        source=LessonSource(type="review"),
        outcome="review",
        state="in-review",
        confidence=50,
        reason="taught by bo",
        pr=PullRef(
            number=12, url="https://github.com/example/kb/pull/12", branch="homeostat/review-bo-2026-12-05"
        ),
        review_opened_at=NOW - dt.timedelta(days=1),
        at=NOW - dt.timedelta(days=1),
    )


def merged_by(login: str) -> PullInfo:
    return PullInfo(
        REPO, 12, "u", PullState.MERGED, "t", "", "homeostat/review-bo-2026-12-05", "main", "homeostat-bot",
        head_sha=HEAD, merged_by=login,
    )  # fmt: skip


def settle_one(config: Config, record: DecisionRecord, merger: str) -> tuple[DecisionRecord, object]:
    def is_member(login: str) -> bool:
        return config.member(login) is not None

    verdict = approval_verdict((), {"bo"}, HEAD, is_member, opener="homeostat-bot", merger=merger)
    return _merged(config, record, merged_by(merger), verdict, NOW)


def test_an_authors_own_merge_disputes_the_rule_and_names_nobody_as_approver() -> None:
    settled, retirement = settle_one(team("bo", "ana"), waiting(), "bo")
    reason = f"merged by @bo in #12 with {UNREAD}"
    assert (settled.outcome, settled.state, settled.reason) == ("disputed", "settled", reason)
    assert retirement is not None
    assert (retirement.action, retirement.rule_id, retirement.member, retirement.reason, retirement.by) == (
        "contest", "billing-refunds", "bo", reason, ""
    )  # fmt: skip


def test_a_merge_by_a_member_who_wrote_none_of_its_lessons_is_their_approval() -> None:
    settled, retirement = settle_one(team("bo", "ana"), waiting(), "Ana")
    assert (settled.outcome, settled.reason) == ("merged", "taught by bo")
    assert retirement is not None
    assert (retirement.action, retirement.by, retirement.reason) == (
        "approve",
        "ana",
        "merged by @ana in #12",
    )


def test_an_approval_at_the_merged_head_is_named_beside_the_merger() -> None:
    config = team("bo", "ana")
    verdict = Verdict("ana", "approved by ana")
    settled, retirement = _merged(config, waiting(), merged_by("bo"), verdict, NOW)
    assert settled.outcome == "merged" and retirement is not None
    assert (retirement.action, retirement.by, retirement.reason) == (
        "approve", "ana", "merged by @bo in #12, approved by @ana"
    )  # fmt: skip


def test_a_one_member_team_merges_as_before_and_the_record_says_nobody_else_read_it() -> None:
    settled, retirement = settle_one(team("bo"), waiting(), "bo")
    reason = "merged by @bo in #12 with no second person: the team has one member"
    assert (settled.outcome, settled.reason) == ("merged", reason)
    assert retirement is not None and (retirement.action, retirement.by) == ("approve", "bo")


def test_an_outsiders_merge_is_no_reading() -> None:
    settled, retirement = settle_one(team("bo", "ana"), waiting(), "eve")
    assert settled.outcome == "disputed" and "eve merged it and is not a team member" in settled.reason
    assert retirement is not None and retirement.action == "contest"


def test_a_dispute_pr_its_own_flagger_merged_disputes_the_fixed_rule_again() -> None:
    """A dispute PR carries a model-drafted fix: merged unread, the fixed rule is disputed again (it
    reaches no agent) and a new dispute PR asks a second person."""
    settled, retirement = settle_one(team("bo", "ana"), waiting("dispute"), "bo")
    assert settled.outcome == "disputed"
    assert retirement is not None and retirement.action == "contest"


def test_a_document_section_merged_unread_has_no_rule_to_dispute_and_says_so() -> None:
    settled, retirement = settle_one(team("bo", "ana"), waiting("doc", rule_id=None), "bo")
    assert settled.outcome == "merged" and retirement is None
    assert settled.reason == f"merged by @bo in #12 with {UNREAD}; a document section, so nothing is disputed"


@pytest.mark.parametrize("merger", ["bo", "ana"])
def test_a_merged_flag_disputes_its_rule_whoever_merged_it(merger: str) -> None:
    settled, retirement = settle_one(team("bo", "ana"), waiting("flag"), merger)
    assert settled.outcome == "disputed" and retirement is not None and retirement.action == "dispute"


def state_of(*records: DecisionRecord) -> StateSnapshot:
    return parse_state(state_files((DecisionsFile(member="bo", records=records),)), None)


def test_a_rule_disputed_for_an_unread_merge_is_flagged_again_until_its_dispute_pr_opens() -> None:
    """A run that stopped after settling (or whose daily PR did not land) owes the dispute: the next
    run flags the rule (`contest`, which leaves a rule already disputed alone) and opens its PR."""
    settled, _ = settle_one(team("bo", "ana"), waiting(), "bo")
    [owed] = disputes_owed(state_of(settled))
    assert (owed.action, owed.rule_id, owed.reason) == ("contest", "billing-refunds", settled.reason)
    dispute = waiting("dispute").model_copy(update={"hash": "dispute-billing-refunds-2026-12-06", "at": NOW})
    assert disputes_owed(state_of(settled, dispute)) == []
