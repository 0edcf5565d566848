"""One member's flags past `scoring.autoMerge.flags` in a run wait for a person (issue 29), end to end
over the GitHub emulator: an agent under a prompt injection that flags every rule takes at most three
out of every agent's context unread, and a run that finishes a killed one lets no more through."""

from __future__ import annotations

import pytest
from dailyworld import DailyWorld
from racekit import spawn_daily

from homeostat.core.pending import PendingLesson

FLAGGED = {  # four rules no subject gate names, and where they live
    "billing-api-error-status-table": "knowledge/billing/api/errors.md",
    "billing-api-integer-minor-units": "knowledge/billing/api/money.md",
    "log-with-fields": "knowledge/core/log-with-fields.md",
    "use-theme-spacing": "knowledge/storefront/ui/use-theme-spacing.md",
}
CAP_REASON = (
    "bo flagged 4 rules today (UTC): more than scoring.autoMerge.flags (3) take rules out of every"
    " agent's context only after a person reads them"
)


def flag_four_rules(world: DailyWorld) -> str:
    """bo's agent flags four rules; the id of the one the run reads last (lessons are read in the
    order of their pending files, named by content key)."""
    flags: list[PendingLesson] = [
        world.pending("bo", kind="flag", target=rule_id, reason="this rule is out of date")
        for rule_id in FLAGGED
    ]
    return max(flags, key=lambda flag: flag.content_key()).target


def served(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> str:
    """What `homeostat context` serves agents in billing's API and storefront's components, from main."""
    from homeostat.cli import main

    kb, out = str(world.checkout()), ""
    for repo, path in (("billing", "src/billing/api/app.py"), ("storefront", "web/components/Cart.tsx")):
        capsys.readouterr()
        assert main(["context", "--kb", kb, "--repo", repo, "--files", path]) == 0
        out += capsys.readouterr().out
    return out


def set_flags(world: DailyWorld, flags: int, key: str = "flags") -> None:
    repo = world.bare()
    tip = repo.rev_parse("refs/heads/main")
    assert tip is not None
    config = world.main_files()["homeostat.yaml"].replace(
        "  autoMerge:\n", f"  autoMerge:\n    {key}: {flags}\n"
    )
    repo.run(
        "update-ref", "refs/heads/main", repo.commit_files(tip, {"homeostat.yaml": config.encode()}, "flags")
    )


def assert_three_disputed_and_the_last_in_review(
    world: DailyWorld, capsys: pytest.CaptureFixture[str], last: str
) -> None:
    records = {r.rule_id: r for r in world.records().values() if r.kind == "flag"}
    assert {rule_id: records[rule_id].outcome for rule_id in FLAGGED} == {
        rule_id: "review" if rule_id == last else "disputed" for rule_id in FLAGGED
    }
    held = records[last]
    assert held.reason == CAP_REASON
    main, text = world.main_files(), served(world, capsys)
    for rule_id, path in FLAGGED.items():
        status = "accepted" if rule_id == last else "disputed"
        assert f"status: {status}" in main[path], rule_id
        assert (f"({rule_id})" in text) == (rule_id == last), rule_id
    assert held.pr is not None
    review = world.pulls()[held.pr.number]
    assert f"Flag on `{last}` by @bo: `this rule is out of date`" in review.body
    assert f"- Why a person: {CAP_REASON}" in review.body
    titles = [p.title for p in world.pulls().values()]
    opened = [rule_id for rule_id in FLAGGED if f"Homeostat dispute: {rule_id}" in titles]
    assert sorted(opened) == sorted(set(FLAGGED) - {last})
    assert len(set(titles)) == len(titles)  # one dispute PR each, one review PR


def test_a_members_fourth_flag_in_a_run_waits_in_their_review_pr_and_its_rule_stays_served(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    set_flags(world, 4, "teamFlags")  # room for cy's flag beside bo's three
    last = flag_four_rules(world)
    world.pending("cy", kind="flag", target="no-router-rewrite", reason="the legacy router is gone")
    assert world.daily() == 0, capsys.readouterr().out
    assert_three_disputed_and_the_last_in_review(world, capsys, last)
    [cys] = [r for r in world.records().values() if r.member == "cy" and r.kind == "flag"]
    assert cys.outcome == "disputed"  # another member's flags are counted on their own


def test_flags_zero_sends_every_flag_to_a_person_and_every_rule_stays_served(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    set_flags(world, 0)
    flag_four_rules(world)
    before = {path: text for path, text in world.main_files().items() if path.startswith("knowledge/")}
    assert world.daily() == 0, capsys.readouterr().out
    flags = [r for r in world.records().values() if r.kind == "flag"]
    assert sorted(r.rule_id for r in flags) == sorted(FLAGGED)
    assert {(r.outcome, r.reason.split(":")[0]) for r in flags} == {
        ("review", "scoring.autoMerge.flags is 0")
    }
    assert {
        path: text for path, text in world.main_files().items() if path.startswith("knowledge/")
    } == before
    text = served(world, capsys)
    assert all(f"({rule_id})" in text for rule_id in FLAGGED)
    assert not [p for p in world.pulls().values() if p.title.startswith("Homeostat dispute:")]
    [review] = {r.pr.number for r in flags if r.pr is not None}
    assert world.pulls()[review].body.count("Flag on `") == 4


@pytest.mark.parametrize("point", ["after-daily", "before-state"])
def test_a_run_that_finishes_a_killed_one_lets_no_more_flags_through(
    world: DailyWorld, capsys: pytest.CaptureFixture[str], point: str
) -> None:
    """Killed after bo's daily PR (three flags) merged and before the review PR: the next run records
    those three from the journal and decides the fourth again, counting the three as this run's, and
    opens the three dispute PRs the killed run did not get to. Killed after every PR opened, before
    the state write: the next run adopts them all and opens none again."""
    last = flag_four_rules(world)
    killed = spawn_daily(world, kill_at=point)
    out = killed.communicate(timeout=600)[0]
    assert killed.returncode == -9, out
    assert world.daily() == 0, capsys.readouterr().out
    assert_three_disputed_and_the_last_in_review(world, capsys, last)


def test_two_runs_killed_in_a_row_still_open_every_dispute_pr(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """Killed after bo's daily PR merged three flags; the run that finishes it (recording the three
    from the journal and opening the review PR for the fourth) is killed before it opens the dispute
    PRs. The third run still opens all three: without them the disputed rules would reach no agent
    and no reviewer would be asked, since the second run's journal does not carry the first's."""
    last = flag_four_rules(world)
    for point in ("after-daily", "before-disputes"):
        killed = spawn_daily(world, kill_at=point)
        out = killed.communicate(timeout=600)[0]
        assert killed.returncode == -9, out
    assert not [p for p in world.pulls().values() if p.title.startswith("Homeostat dispute:")]
    assert world.daily() == 0, capsys.readouterr().out
    assert_three_disputed_and_the_last_in_review(world, capsys, last)
    assert world.daily() == 0, capsys.readouterr().out  # and a later run opens none again
    assert_three_disputed_and_the_last_in_review(world, capsys, last)


def test_a_dispute_pr_a_spending_cap_put_off_opens_in_the_next_run(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flag merges with no model call, but its dispute PR's fix is drafted by one: a run at its
    spending cap says the fix waits, and the next run opens the dispute PR (once)."""
    world.pending("cy", kind="flag", target="no-router-rewrite", reason="the legacy router is gone")
    assert world.daily("--max-cost", "0") == 0
    out = capsys.readouterr().out
    assert "the dispute fix for no-router-rewrite waits for the next run" in out, out
    [flag] = [r for r in world.records().values() if r.kind == "flag"]
    assert flag.outcome == "disputed"
    assert not [p for p in world.pulls().values() if p.title.startswith("Homeostat dispute:")]
    for _ in range(2):
        assert world.daily() == 0, capsys.readouterr().out
        disputes = [p for p in world.pulls().values() if p.title.startswith("Homeostat dispute:")]
        assert [p.title for p in disputes] == ["Homeostat dispute: no-router-rewrite"]
