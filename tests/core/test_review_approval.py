"""Which approval lets `homeostat review merge` merge a review PR, and which lets `homeostat daily`
count one merged with the host's button as read (homeostat.core.review_approval), and how GitHub's
review list becomes approvals (the adapter's parser)."""

from __future__ import annotations

import pytest

from homeostat.adapters.hosts.github import standing_approvals
from homeostat.core.hosts import Approval
from homeostat.core.review_approval import NO_APPROVAL, approval_verdict

HEAD = "a" * 40
OLD = "b" * 40
TEAM = {"ana", "bo", "cy"}


def verdict(
    *approvals: Approval, authors: tuple[str, ...] = ("bo",), opener: str = "homeostat-bot"
) -> tuple[str | None, str]:
    found = approval_verdict(approvals, authors, HEAD, lambda login: login.lower() in TEAM, opener=opener)
    return found.approver, found.reason


@pytest.mark.parametrize(
    ("approvals", "expected"),
    [
        ((), (None, f"{NO_APPROVAL} (bo wrote them)")),
        ((Approval("bo", HEAD),), (None, f"{NO_APPROVAL} (bo wrote them; bo wrote a lesson in it)")),
        ((Approval("BO"),), (None, f"{NO_APPROVAL} (bo wrote them; BO wrote a lesson in it)")),
        ((Approval("eve", HEAD),), (None, f"{NO_APPROVAL} (bo wrote them; eve is not a team member)")),
        (
            (Approval("cy", OLD),),
            (None, f"{NO_APPROVAL} (bo wrote them; cy approved {OLD[:12]}, not its head {HEAD[:12]})"),
        ),
        (
            (Approval("homeostat-bot", HEAD),),
            (None, f"{NO_APPROVAL} (bo wrote them; homeostat-bot opened it)"),
        ),
        ((Approval("cy", HEAD),), ("cy", "approved by cy")),
        ((Approval("cy", HEAD[:12]),), ("cy", "approved by cy")),  # Bitbucket's short hashes
        ((Approval("cy"),), ("cy", "approved by cy")),  # Bitbucket Cloud: no commit recorded
        ((Approval("bo", HEAD), Approval("ana", HEAD)), ("ana", "approved by ana")),
    ],
)
def test_only_a_team_member_who_wrote_no_lesson_approving_the_head_counts(
    approvals: tuple[Approval, ...], expected: tuple[str | None, str]
) -> None:
    assert verdict(*approvals) == expected


def test_every_author_of_a_pr_with_several_lessons_is_named() -> None:
    assert verdict(Approval("ana", HEAD), authors=("bo", "ana")) == (
        None,
        f"{NO_APPROVAL} (ana, bo wrote them; ana wrote a lesson in it)",
    )


@pytest.mark.parametrize(
    ("approvals", "merger", "expected"),
    [
        ((), "bo", (None, f"{NO_APPROVAL} (bo wrote them)")),  # the author's own merge button
        ((Approval("bo", HEAD),), "bo", (None, f"{NO_APPROVAL} (bo wrote them; bo wrote a lesson in it)")),
        ((), "eve", (None, f"{NO_APPROVAL} (bo wrote them; eve merged it and is not a team member)")),
        ((), "ana", ("ana", "merged by ana")),  # a member who wrote none of its lessons read it to merge it
        (
            (),
            "homeostat-bot",
            (None, f"{NO_APPROVAL} (bo wrote them; homeostat-bot merged it and is not a team member)"),
        ),
        ((Approval("cy", HEAD),), "bo", ("cy", "approved by cy")),  # bo merged what cy approved
        (
            (Approval("cy", OLD),),
            "bo",
            (None, f"{NO_APPROVAL} (bo wrote them; cy approved {OLD[:12]}, not its head {HEAD[:12]})"),
        ),
        ((Approval("cy"),), "bo", ("cy", "approved by cy")),  # Bitbucket Cloud: no commit recorded
    ],
)
def test_a_merge_counts_as_the_mergers_reading_only_when_they_wrote_none_of_its_lessons(
    approvals: tuple[Approval, ...], merger: str, expected: tuple[str | None, str]
) -> None:
    """Once merged with the host's button (homeostat daily's settle): `HEAD` is the head it merged."""
    found = approval_verdict(approvals, ("bo",), HEAD, lambda login: login in TEAM, merger=merger)
    assert (found.approver, found.reason) == expected


def test_a_merger_who_wrote_one_of_several_lessons_is_no_reader() -> None:
    found = approval_verdict((), ("bo", "ana"), HEAD, lambda login: login in TEAM, merger="ANA")
    assert (found.approver, found.reason) == (None, f"{NO_APPROVAL} (ana, bo wrote them)")


def review(login: str, state: str, commit: str = HEAD) -> dict[str, object]:
    return {"id": 1, "user": {"login": login}, "state": state, "commit_id": commit, "submitted_at": "x"}


@pytest.mark.parametrize(
    ("reviews", "expected"),
    [
        ([review("cy", "APPROVED")], [Approval("cy", HEAD)]),
        ([review("cy", "APPROVED", OLD), review("cy", "COMMENTED")], [Approval("cy", OLD)]),
        ([review("cy", "APPROVED"), review("cy", "CHANGES_REQUESTED")], []),
        ([review("cy", "APPROVED"), review("cy", "DISMISSED")], []),
        ([review("cy", "CHANGES_REQUESTED"), review("cy", "APPROVED")], [Approval("cy", HEAD)]),
        ([review("cy", "APPROVED", OLD), review("cy", "APPROVED")], [Approval("cy", HEAD)]),
        ([review("cy", "PENDING")], []),
        ([{"user": None, "state": "APPROVED"}], []),  # a deleted account
    ],
)
def test_each_reviewers_latest_verdict_stands_as_github_counts_it(
    reviews: list[dict[str, object]], expected: list[Approval]
) -> None:
    assert standing_approvals(reviews) == expected
