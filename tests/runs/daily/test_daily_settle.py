"""Settling a review PR someone merged with the host's own button (issue 29, "never merges unread"),
end to end through `homeostat daily` over the GitHub and Bitbucket emulators.

`homeostat review merge` merges only with an approval by a team member who wrote none of the PR's
lessons; the host's merge button asks no such thing (only branch protection does). So the next run
counts a merged review PR as read only when such a member approved it at the head it merged, or
merged it themselves; otherwise its rule is disputed and a second person decides it in a dispute PR.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld

from homeostat.core.hosts import PullInfo

TITLE = "Charge the checkout form's price"
HARM = "Charge the price the checkout form sends when it is within a dollar of the catalogue price."


@pytest.fixture(params=["github", "bitbucket"])
def any_world(request, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DailyWorld:  # type: ignore[no-untyped-def]
    harness = request.getfixturevalue(f"{request.param}_harness")
    return DailyWorld(harness, anthropic_stub, tmp_path, monkeypatch)


def bos_review_pr(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> int:
    """bo teaches a lesson; the run sends it to a review PR (a taught lesson waits for a person)."""
    world.pending(
        "bo",
        title=TITLE,
        rule=f"In `src/billing/api/checkout.py`: {HARM}",
        why="Fewer disputes.",
        area="billing/api",
    )
    assert world.daily() == 0, capsys.readouterr().out
    record = lesson_record(world)
    assert record.outcome == "review" and record.pr is not None  # type: ignore[attr-defined]
    return int(record.pr.number)  # type: ignore[attr-defined]


def lesson_record(world: DailyWorld) -> object:
    """bo's lesson's record (a dispute PR's record has the rule's title too)."""
    return next(r for r in world.state().records() if r.title == TITLE and r.kind != "dispute")


def rule_section(world: DailyWorld, rule_id: str) -> str:
    """The rule's section on main, its metadata comment included."""
    for text in world.main_files().values():
        if f"{{#{rule_id}}}" in text:
            start = text.index(f"{{#{rule_id}}}")
            following = text.find("\n## ", start)
            return text[start : following if following != -1 else len(text)]
    raise AssertionError(f"{rule_id} is not on main")


def dispute_prs(world: DailyWorld, rule_id: str) -> list[PullInfo]:
    """The open dispute PRs for the rule, as the host lists them."""
    return world.harness.adapter().list_open_pulls(world.kb_repo, f"homeostat/review-dispute-{rule_id}-")


def assert_in_force_read_by(world: DailyWorld, record: Any, reader: str) -> None:
    """The merged PR counted as `reader`'s reading: its rule is in force with them as its approver,
    and no dispute PR asks anyone else."""
    assert (record.outcome, record.state) == ("merged", "settled"), record.reason
    assert record.rule_id
    section = rule_section(world, record.rule_id)
    assert "status: accepted" in section and f"approvedBy: [{reader}]" in section
    assert dispute_prs(world, record.rule_id) == []


def test_an_author_who_merges_their_own_review_pr_gets_a_dispute_not_an_approval(
    any_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = any_world
    number = bos_review_pr(world, capsys)
    world.harness.approve(world.kb_repo, number, "bo")  # bo's agent approves, with bo's token
    world.harness.merge_as(world.kb_repo, number, "bo")  # and presses the host's merge button
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    record: Any = lesson_record(world)
    reason = (
        f"merged by @bo in #{number} with no approval by a team member who wrote none of its lessons"
        " (bo wrote them; bo wrote a lesson in it)"
    )
    assert (record.outcome, record.state, record.reason) == ("disputed", "settled", reason)
    assert record.rule_id
    section = rule_section(world, record.rule_id)
    assert "status: disputed" in section  # a disputed rule reaches no agent
    assert "approvedBy: [bo]" not in section and "approvedBy: [" not in section
    [dispute] = dispute_prs(world, record.rule_id)
    assert reason in dispute.body
    disputes = [r for r in world.records().values() if r.kind == "dispute" and r.rule_id == record.rule_id]
    assert [(r.member, r.state) for r in disputes] == [("bo", "in-review")]


def test_a_second_members_approval_at_the_merged_head_counts(
    any_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = any_world
    number = bos_review_pr(world, capsys)
    world.harness.approve(world.kb_repo, number, "ana")  # a second person read it
    world.harness.merge_as(world.kb_repo, number, "bo")
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    assert_in_force_read_by(world, lesson_record(world), "ana")


def test_a_member_who_wrote_none_of_its_lessons_merging_it_is_their_review(
    any_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = any_world
    number = bos_review_pr(world, capsys)
    world.harness.merge_as(world.kb_repo, number, "ana")  # no formal approval: the merge is ana's reading
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    assert_in_force_read_by(world, lesson_record(world), "ana")


def test_an_approval_given_before_a_later_push_is_not_an_approval_of_what_merged(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub records the commit a review was given at: ana read the PR, then bo pushed onto its branch
    and merged. What merged is not what ana read."""
    number = bos_review_pr(world, capsys)
    world.harness.approve(world.kb_repo, number, "ana")
    bare = world.bare()
    branch = world.harness.adapter().get_pull(world.kb_repo, number).head_branch
    tip = bare.rev_parse(f"refs/heads/{branch}")
    assert tip is not None
    pushed = bare.commit_files(
        tip, {"knowledge/billing/api/notes.md": b"# Notes\n"}, "one more", parents=[tip]
    )
    bare.run("update-ref", f"refs/heads/{branch}", pushed)
    world.harness.merge_as(world.kb_repo, number, "bo")
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    record: Any = lesson_record(world)
    assert record.outcome == "disputed"
    assert f"ana approved {tip[:12]}, not its head {pushed[:12]}" in record.reason
    assert record.rule_id and "approvedBy: [ana]" not in rule_section(world, record.rule_id)


def test_an_unclear_answer_about_the_approvals_leaves_the_record_for_the_next_run(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    number = bos_review_pr(world, capsys)
    world.harness.merge_as(world.kb_repo, number, "bo")
    world.harness.fail_on("GET", f"/pulls/{number}/reviews", 404)
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    record: Any = lesson_record(world)
    assert (record.outcome, record.state) == ("review", "in-review")  # never read as approved
    assert record.rule_id and "approvedBy: [bo]" not in rule_section(world, record.rule_id)

    assert world.daily() == 0, capsys.readouterr().out  # the host answers now
    assert lesson_record(world).outcome == "disputed"  # type: ignore[attr-defined]


def test_a_second_person_settles_the_dispute_of_a_self_merged_rule(
    any_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """The dispute path as it was: ana closes the dispute PR, and the next run retires the rule."""
    world = any_world
    number = bos_review_pr(world, capsys)
    world.harness.merge_as(world.kb_repo, number, "bo")
    assert world.daily() == 0, capsys.readouterr().out
    rule_id = lesson_record(world).rule_id  # type: ignore[attr-defined]
    [dispute] = dispute_prs(world, rule_id)
    world.harness.close_as(world.kb_repo, dispute.number, "ana")

    assert world.daily() == 0, capsys.readouterr().out

    assert "status: retired" in rule_section(world, rule_id)
    assert dispute_prs(world, rule_id) == []


def test_a_dispute_pr_its_own_flagger_merges_is_disputed_again_not_put_in_force(
    any_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dispute PR carries a model-drafted fix. bo, whose merge it disputes, merges it himself: the
    fixed rule would be in force with nobody else having read it, so it is disputed again and a new
    dispute PR asks a second person."""
    world = any_world
    number = bos_review_pr(world, capsys)
    world.harness.merge_as(world.kb_repo, number, "bo")
    world.script.dispute_fix = {
        "fixable": True,
        "title": "Charge the catalogue price",
        "rule": f"In `src/billing/api/checkout.py`: {HARM}",
        "why": "Fewer disputes.",
        "reason": "the merge was not read",
    }
    assert world.daily() == 0, capsys.readouterr().out
    rule_id = lesson_record(world).rule_id  # type: ignore[attr-defined]
    [dispute] = dispute_prs(world, rule_id)
    world.harness.merge_as(world.kb_repo, dispute.number, "bo")
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    assert "status: disputed" in rule_section(world, rule_id)  # reaches no agent
    [again] = dispute_prs(world, rule_id)
    assert again.number != dispute.number
    settled = [
        r for r in world.state().records() if r.kind == "dispute" and r.pr and r.pr.number == dispute.number
    ]
    assert [(r.outcome, r.state) for r in settled] == [("disputed", "settled")]
    assert settled[0].reason.startswith(f"merged by @bo in #{dispute.number} with no approval")


def test_a_pr_review_merge_rebuilt_from_the_approved_head_counts_as_approved(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """On GitHub an approval names its commit, and `review merge` merges a rebuild of it on the moved
    base, a commit nobody approved. The rebuild keeps the approved commit as its second parent, so
    the run can make it again from that commit and see it is exactly what merged."""
    from homeostat.cli import main

    for member, title in (("bo", "Log the decline code"), ("ana", "Retry refunds with backoff")):
        world.pending(member, title=title, rule=f"{title} in `src/billing/api/refunds.py`.", why="Support asked.",
                      area="billing/api", topic="errors")  # fmt: skip
    assert world.daily() == 0, capsys.readouterr().out
    records = {r.title: r for r in world.state().records()}
    first, second = (records[t].pr.number for t in ("Log the decline code", "Retry refunds with backoff"))
    assert first != second
    world.harness.merge_as(world.kb_repo, first, "cy")  # the other one conflicts for git now
    world.harness.approve(world.kb_repo, second, "cy")
    world.env()
    capsys.readouterr()
    assert main(["review", "merge", "--all", "--kb", str(world.checkout())]) == 0
    assert f"PR #{second}: merged: rebuilt on main and merged" in capsys.readouterr().out

    assert world.daily() == 0, capsys.readouterr().out

    record = next(r for r in world.state().records() if r.title == "Retry refunds with backoff")
    assert_in_force_read_by(world, record, "cy")


def test_a_commit_dressed_as_a_rebuild_of_the_approved_head_is_no_approval_of_what_merged(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """ana pushes, onto her approved review PR, the rebuild review merge would make plus one more
    rule, with the same two parents, and merges it herself: rebuilt again, it is not that commit."""
    from homeostat.runs.review import rebuild_on

    for member, title in (("bo", "Log the decline code"), ("ana", "Retry refunds with backoff")):
        world.pending(member, title=title, rule=f"{title} in `src/billing/api/refunds.py`.", why="Support asked.",
                      area="billing/api", topic="errors")  # fmt: skip
    assert world.daily() == 0, capsys.readouterr().out
    records = {r.title: r for r in world.state().records()}
    first, second = (records[t].pr.number for t in ("Log the decline code", "Retry refunds with backoff"))
    world.harness.merge_as(world.kb_repo, first, "cy")
    world.harness.approve(world.kb_repo, second, "cy")
    bare = world.bare()
    branch = world.harness.adapter().get_pull(world.kb_repo, second).head_branch
    approved, onto = bare.rev_parse(f"refs/heads/{branch}"), bare.rev_parse("refs/heads/main")
    assert approved and onto
    fork = bare.run("merge-base", approved, onto).stdout.decode().strip()
    built = rebuild_on(bare, fork, onto, approved)
    changes = {p: None if t is None else t.encode() for p, t in built.files.items()}
    changes["knowledge/billing/api/errors.md"] = (changes["knowledge/billing/api/errors.md"] or b"") + (
        f"\n{HARM}\n".encode()
    )
    forged = bare.commit_files(
        onto, changes, "Rebuilt on main by homeostat review merge.", parents=[onto, approved]
    )
    bare.run("update-ref", f"refs/heads/{branch}", forged)
    world.harness.merge_as(world.kb_repo, second, "ana")
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    record = next(r for r in world.state().records() if r.title == "Retry refunds with backoff")
    assert record.outcome == "disputed", record.reason
    assert f"cy approved {approved[:12]}, not its head {forged[:12]}" in record.reason
