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
    """Two review PRs (ana's, then bo's), each adding a section at the end of the same topic file."""
    first = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    second = world.review_pr("bo", world.with_rule(section("billing-api-log-codes", "Log the decline code")))
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
    number = world.review_pr(RULE, {TOPIC: text}, prefix="homeostat/review-dispute-")
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
