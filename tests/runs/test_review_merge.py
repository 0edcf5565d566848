"""`homeostat review merge` end to end: the GitHub and Bitbucket emulators, real git, the real adapters."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kbfactory import stderr_errors
from kit import TESTS
from reviewworld import TOPIC, ReviewWorld, section

from homeostat.core.hosts import PullState
from homeostat.errors import HomeostatError
from homeostat.runs.publish import Publisher

RULE = "billing-api-error-status-table"
KILLPOINT = TESTS / "killpoint.py"


@pytest.fixture(params=["github", "bitbucket"])
def world(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewWorld:
    harness = request.getfixturevalue(f"{request.param}_harness")
    made = ReviewWorld(harness, tmp_path, monkeypatch)
    if request.param == "bitbucket":
        harness.emulator.merge_task_polls = 1  # the merge is asynchronous: polled once, then done
        harness.miss_force_pushes(made.kb_repo)  # as Bitbucket can: only an ordinary push shows
    return made


def two_additions(world: ReviewWorld) -> tuple[int, int]:
    """Two review PRs (ana's, then bo's), each adding a section at the end of the same topic file,
    both approved by cy, who wrote neither."""
    first = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    second = world.review_pr("bo", world.with_rule(section("billing-api-log-codes", "Log the decline code")))
    world.approve(first, "cy")
    world.approve(second, "cy")
    return first, second


@pytest.fixture
def github_world(github_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewWorld:  # type: ignore[no-untyped-def]
    return ReviewWorld(github_harness, tmp_path, monkeypatch)


def test_two_review_prs_adding_sections_to_one_topic_file_both_merge(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_additions(world)
    assert world.run("review", "merge", str(first)) == 0, capsys.readouterr()
    # git alone cannot merge the second any more: both added lines at the end of the same file
    refused = world.adapter.merge_pull(world.kb_repo, second, "t", "m")
    assert refused.refused, refused
    assert world.state(second)["state"] == "open"

    code = world.run("review", "merge", "--all")
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"PR #{second}: merged: rebuilt on main and merged" in out
    topic = world.main_text(TOPIC)
    assert "{#billing-api-retry-refunds}" in topic and "{#billing-api-log-codes}" in topic
    assert topic.index("{#billing-api-error-status-table}") < topic.index("{#billing-api-log-codes}")
    assert world.validate_main() == []
    assert world.state(first)["state"] == world.state(second)["state"] == "merged"
    assert world.log()[0].startswith(f"Homeostat review: bo 2026-12-01 (#{second})")
    assert world.branch("homeostat/review-bo-2026-12-01") is None  # deleted once merged


def test_a_run_killed_after_pushing_the_rebuilt_branch_merges_it_on_the_rerun(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_additions(world)
    assert world.run("review", "merge", str(first)) == 0
    world.env()
    killed = subprocess.run(
        [sys.executable, str(KILLPOINT), "after-rebuilt-push", "review", "merge", str(second)]
        + ["--kb", str(world.checkout())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert world.state(second)["state"] == "open"  # rebuilt and pushed, not merged
    capsys.readouterr()

    if world.host == "github":  # cy's approval was of the head before the rebuild: cy approves again
        assert world.run("review", "merge", "--all") == 1
        assert "cy approved" in capsys.readouterr().out and world.state(second)["state"] == "open"
        world.approve(second, "cy")
    assert world.run("review", "merge", "--all") == 0
    assert f"PR #{second}: merged: merged (" in capsys.readouterr().out  # level with main: no second rebuild
    topic = world.main_text(TOPIC)
    assert topic.count("{#billing-api-log-codes}") == topic.count("{#billing-api-retry-refunds}") == 1
    assert world.validate_main() == []


def test_a_pr_level_with_the_base_merges_without_a_rebuild(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    number = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    world.approve(number, "cy")
    assert world.run("review", "merge", str(number)) == 0
    out = capsys.readouterr().out
    assert f"PR #{number}: merged: merged (" in out
    assert "{#billing-api-retry-refunds}" in world.main_text(TOPIC)


def test_the_same_rule_changed_on_both_sides_is_left_open_with_one_comment(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    text = world.main_text(TOPIC)
    first = world.review_pr("ana", {TOPIC: text.replace("Never pick a status code", "Never choose a status")})
    second = world.review_pr("bo", {TOPIC: text.replace("Never pick a status code", "Do not pick a status")})
    world.approve(first, "cy")
    world.approve(second, "cy")
    assert world.run("review", "merge", str(first)) == 0
    capsys.readouterr()
    before = world.branch("homeostat/review-bo-2026-12-01")

    assert world.run("review", "merge", str(second)) == 1
    out = capsys.readouterr().out
    assert f"PR #{second}: left-open: rule {RULE} in {TOPIC}: both sides changed it" in out
    state = world.state(second)
    assert state["state"] == "open"
    [comment] = state["comments"]
    assert f"rule {RULE} in {TOPIC}: both sides changed it" in str(comment)
    assert f"Homeostat review: ana 2026-12-01 (#{first})" in str(comment)  # the base commit that changed it

    assert world.run("review", "merge", "--all") == 1  # a rerun: still open, still one comment
    assert len(world.state(second)["comments"]) == 1  # type: ignore[arg-type]
    assert world.branch("homeostat/review-bo-2026-12-01") == before  # nothing pushed over it
    assert "Do not pick a status" not in world.main_text(TOPIC)


def test_a_host_that_refuses_the_merge_leaves_the_rebuilt_pr_open(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = two_additions(world)
    assert world.run("review", "merge", str(first)) == 0
    world.harness.protect_branch(world.kb_repo, "main")
    capsys.readouterr()

    assert world.run("review", "merge", str(second)) == 1
    out = capsys.readouterr().out
    assert f"PR #{second}: left-open: the host refused the merge" in out
    assert world.state(second)["state"] == "open"
    rebuilt = world.bare().read_file("refs/heads/homeostat/review-bo-2026-12-01", TOPIC)
    assert (
        rebuilt is not None
        and b"{#billing-api-log-codes}" in rebuilt
        and b"{#billing-api-retry-refunds}" in rebuilt
    )
    assert "{#billing-api-log-codes}" not in world.main_text(TOPIC)


def test_merged_and_closed_prs_are_reported_and_skipped(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    closed = world.review_pr("bo", world.with_rule(section("billing-api-log-codes", "Log the decline code")))
    world.harness.merge_as(world.kb_repo, merged, "ana")
    world.harness.close_as(world.kb_repo, closed, "ana")
    tip = world.branch("main")
    assert world.run("review", "merge", str(merged)) == 0
    assert world.run("review", "merge", str(closed)) == 0
    out = capsys.readouterr().out
    assert f"PR #{merged}: skipped: already merged" in out
    assert f"PR #{closed}: skipped: already closed" in out
    assert world.branch("main") == tip


def test_an_unknown_pr_number_is_one_line_naming_it(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    assert world.run("review", "merge", "999") != 0
    err = stderr_errors(capsys.readouterr().err)
    assert len(err.strip().splitlines()) == 1
    assert "PR #999" in err and err.startswith("homeostat: ")


def test_a_pr_that_is_not_homeostats_is_refused_and_left_alone(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world.push_branch("feature/faster", {"knowledge/core/notes.md": "notes\n"}, "Faster")
    number = world.adapter.open_pull(world.kb_repo, "feature/faster", "main", "Faster", "").number
    tip = world.branch("main")
    assert world.run("review", "merge", str(number)) == 2
    err = stderr_errors(capsys.readouterr().err)
    assert err.strip() == (
        f"homeostat: PR #{number} is not a Homeostat review or dispute PR: its branch is 'feature/faster' into "
        "'main', and review merge only merges homeostat/review-* branches into main (sources.baseBranch)"
    )
    assert world.state(number)["state"] == "open" and world.branch("main") == tip


def test_a_dry_run_rebuilds_and_pushes_comments_and_merges_nothing(
    github_world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    first, second = two_additions(world)
    world.harness.merge_as(world.kb_repo, first, "ana")
    head = world.branch("homeostat/review-bo-2026-12-01")
    capsys.readouterr()
    assert world.run("review", "merge", "--all", "--dry-run") == 0
    assert f"PR #{second}: dry-run: would merge, rebuilt on main" in capsys.readouterr().out
    assert world.branch("homeostat/review-bo-2026-12-01") == head
    assert world.state(second)["state"] == "open" and world.state(second)["comments"] == []
    import json

    assert world.run("review", "merge", "--all", "--dry-run", "--format", "json") == 0
    report = json.loads(capsys.readouterr().out)  # the shape docs/cli.md promises
    assert set(report) == {"dryRun", "merged", "leftOpen", "skipped", "pulls"} and report["dryRun"] is True
    assert report["merged"] == 0 and report["pulls"]
    assert all(
        set(pull) == {"number", "url", "outcome", "reason", "rebuilt", "mergeSha"} for pull in report["pulls"]
    )
    assert world.state(second)["state"] == "open"


def test_a_dispute_pr_is_a_review_pr_too(
    github_world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    text = world.main_text(TOPIC).replace("status: accepted", "status: retired", 1)
    number = world.review_pr(RULE, {TOPIC: text}, prefix="homeostat/review-dispute-", author="dee")
    world.approve(number, "cy")
    assert world.run("review", "merge", "--all", "--format", "json") == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["merged"] == 1 and report["pulls"][0]["number"] == number
    assert "status: retired" in world.main_text(TOPIC)


def test_only_review_branches_are_ever_force_pushed(github_world: ReviewWorld) -> None:
    world = github_world
    publisher = Publisher(
        world.bare(), None, None, remote=str(world.harness.bare_path(world.kb_repo)), out=io.StringIO()
    )
    tip = world.branch("main") or ""
    for branch in ("main", "homeostat/state", "candidates/ana"):
        with pytest.raises(HomeostatError, match=f"refusing to force-push {branch}"):
            publisher.push_rebuilt(branch, tip, expect=tip, never=("main", "homeostat/state"))


def test_the_bitbucket_emulator_misses_a_force_push_until_an_ordinary_push(
    bitbucket_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The behaviour review merge's ordinary push answers: without it a rebuilt PR shows its old head."""
    world = ReviewWorld(bitbucket_harness, tmp_path, monkeypatch)
    bitbucket_harness.miss_force_pushes(world.kb_repo)
    number = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    old = world.branch("homeostat/review-ana-2026-12-01") or ""
    bare = world.bare()
    other = bare.commit_files(bare.rev_parse("refs/heads/main"), {"knowledge/core/x.md": b"x\n"}, "rebuilt")
    bare.run("update-ref", "refs/heads/homeostat/review-ana-2026-12-01", other)  # a force push
    assert world.adapter.get_pull(world.kb_repo, number).head_sha == old[:12]
    nudge = bare.commit_files(other, {}, "refresh", parents=[other])
    bare.run("update-ref", "refs/heads/homeostat/review-ana-2026-12-01", nudge)  # an ordinary push
    assert world.adapter.get_pull(world.kb_repo, number).head_sha == nudge[:12]
    assert world.adapter.get_pull(world.kb_repo, number).state is PullState.OPEN


# --- the approval review merge asks for ---------------------------------------------------------------


def retry_refunds(world: ReviewWorld) -> int:
    """ana's review PR, adding one section: level with main, so only an approval stands in its way."""
    return world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )


def left_open(world: ReviewWorld, number: int, capsys: pytest.CaptureFixture[str]) -> str:
    """What a run says about PR `number`, which it must leave open, unmerged and uncommented."""
    tip = world.branch("main")
    assert world.run("review", "merge", "--all") == 1
    out = capsys.readouterr().out
    assert world.state(number)["state"] == "open" and world.state(number)["comments"] == []
    assert world.branch("main") == tip and "{#billing-api-retry-refunds}" not in world.main_text(TOPIC)
    [line] = [line for line in out.splitlines() if line.startswith(f"PR #{number}:")]
    return line.split(" (http", 1)[0]


def test_a_pr_no_one_approved_is_left_open_saying_who_wrote_it(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    number = retry_refunds(world)
    expected = f"PR #{number}: left-open: no approval by a team member who wrote none of its lessons (ana wrote them)"
    assert left_open(world, number, capsys) == expected
    assert left_open(world, number, capsys) == expected  # a rerun: the same line, still no comment


def test_an_approval_by_the_lessons_own_author_does_not_count(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    number = retry_refunds(world)
    world.approve(number, "ana")  # the host lets her: Homeostat's bot opened the PR
    assert left_open(world, number, capsys) == (
        f"PR #{number}: left-open: no approval by a team member who wrote none of its lessons"
        " (ana wrote them; ana wrote a lesson in it)"
    )
    world.approve(number, "bo")
    assert world.run("review", "merge", str(number)) == 0
    assert f"PR #{number}: merged: merged (" in capsys.readouterr().out
    assert "{#billing-api-retry-refunds}" in world.main_text(TOPIC)
    assert world.bare().run("log", "-1", "--format=%b", "main").stdout.decode().strip() == (
        "Merged by homeostat review merge, approved by bo."
    )


def test_an_approval_by_someone_not_on_the_team_does_not_count(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    number = retry_refunds(world)
    world.approve(number, "eve")  # a collaborator homeostat.yaml does not name
    assert left_open(world, number, capsys) == (
        f"PR #{number}: left-open: no approval by a team member who wrote none of its lessons"
        " (ana wrote them; eve is not a team member)"
    )


def test_a_dispute_pr_needs_an_approval_by_someone_other_than_its_flagger(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    text = world.main_text(TOPIC).replace("status: accepted", "status: retired", 1)
    number = world.review_pr(RULE, {TOPIC: text}, prefix="homeostat/review-dispute-", author="dee")
    world.approve(number, "dee")
    assert world.run("review", "merge", str(number)) == 1
    assert "(dee wrote them; dee wrote a lesson in it)" in capsys.readouterr().out
    assert "status: retired" not in world.main_text(TOPIC)


def test_a_pr_no_decision_record_names_is_left_open(
    world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """A homeostat/review-* branch the daily run did not open (or whose records are gone): who wrote
    it is unknown, so no approval can be shown to be a second person's."""
    world.push_branch("homeostat/review-eve-2026-12-01", world.with_rule(section("billing-api-x", "X")), "x")
    number = world.adapter.open_pull(world.kb_repo, "homeostat/review-eve-2026-12-01", "main", "X", "").number
    world.approve(number, "cy")
    assert world.run("review", "merge", str(number)) == 1
    assert (
        f"PR #{number}: left-open: no decision record on homeostat/state names this PR, so who wrote its"
        " lessons is unknown" in capsys.readouterr().out
    )
    assert world.state(number)["state"] == "open"


def approved_then_pushed(world: ReviewWorld, number: int) -> tuple[str, str]:
    """cy approves ana's review PR, then a commit adding a notes file lands on its branch (bo's agent
    adding to the approved PR): the approved head and the pushed one."""
    world.approve(number, "cy")
    approved = world.branch("homeostat/review-ana-2026-12-01") or ""
    bare = world.bare()
    pushed = bare.commit_files(approved, {"knowledge/core/notes.md": b"notes\n"}, "more", parents=[approved])
    bare.run("update-ref", "refs/heads/homeostat/review-ana-2026-12-01", pushed)
    return approved, pushed


def test_an_approval_of_an_older_commit_does_not_count(
    github_world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub records the commit a review approved: a push after it (bo's agent adding a rule to the
    approved PR) needs a new approval. Bitbucket Cloud records none (docs/weekly.md says so)."""
    world = github_world
    number = retry_refunds(world)
    approved, pushed = approved_then_pushed(world, number)
    assert left_open(world, number, capsys) == (
        f"PR #{number}: left-open: no approval by a team member who wrote none of its lessons"
        f" (ana wrote them; cy approved {approved[:12]}, not its head {pushed[:12]})"
    )
    world.approve(number, "cy")
    assert world.run("review", "merge", str(number)) == 0
    assert "notes\n" == world.main_text("knowledge/core/notes.md")


def test_on_bitbucket_an_approval_before_a_push_counts_unless_approvals_reset_on_change(
    bitbucket_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """Bitbucket records no commit for an approval, so review merge cannot tell a stale one: what
    stops a push after cy's approval is the branch restriction "Reset approvals when the source branch
    is modified" (doctor warns without it), which takes the approval away."""
    world = ReviewWorld(bitbucket_harness, tmp_path, monkeypatch)
    state = bitbucket_harness.emulator.repo(world.kb_repo.owner, world.kb_repo.name)
    bitbucket_harness.emulator.add_restriction(
        state, {"kind": "reset_pullrequest_approvals_on_change", "pattern": "main"}
    )
    number = retry_refunds(world)
    approved_then_pushed(world, number)
    assert left_open(world, number, capsys) == (
        f"PR #{number}: left-open: no approval by a team member who wrote none of its lessons (ana wrote them)"
    )
    world.approve(number, "cy")  # cy approves what is there now
    assert world.run("review", "merge", str(number)) == 0
    assert "notes\n" == world.main_text("knowledge/core/notes.md")


def test_a_dry_run_says_whether_the_approval_stands(
    github_world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    number = retry_refunds(world)
    assert world.run("review", "merge", "--all", "--dry-run") == 0
    assert (
        f"PR #{number}: dry-run: would be left open: no approval by a team member who wrote none of its"
        " lessons (ana wrote them)" in capsys.readouterr().out
    )
    world.approve(number, "cy")
    assert world.run("review", "merge", "--all", "--dry-run") == 0
    assert f"PR #{number}: dry-run: would merge, level with main, approved by cy" in capsys.readouterr().out
    assert world.state(number)["state"] == "open"


def test_a_state_branch_that_cannot_be_read_leaves_every_pr_open(
    github_world: ReviewWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    number = retry_refunds(world)
    world.approve(number, "cy")
    bare = world.bare()
    tip = world.branch("homeostat/state")
    broken = bare.commit_files(tip, {"decisions/ana.json": b"{not json"}, "broken")
    bare.run("update-ref", "refs/heads/homeostat/state", broken)
    line = left_open(world, number, capsys)
    assert line.startswith(f"PR #{number}: left-open: homeostat/state cannot be read (")
    assert line.endswith("), so who wrote its lessons is unknown")
