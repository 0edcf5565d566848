"""The digest and review-merge composite actions, run the way the GitHub runner runs them
(tests/actionkit.py), with this checkout's `homeostat` in place of the image (tests/actions/test_image.py runs
the image itself). The KB is a runner's checkout whose credential the container cannot see (checkout
v7), so every fetch and push here authenticates with the action's `token` input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from actionkit import run_action
from kit import REPO
from reviewworld import ReviewWorld, section

DIRECT = {"HOMEOSTAT_BIN": str(Path(sys.executable).parent / "homeostat")}


@pytest.fixture
def world(github_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReviewWorld:  # type: ignore[no-untyped-def]
    return ReviewWorld(github_harness, tmp_path, monkeypatch)


def checkout(world: ReviewWorld, git_http, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    from runnerkit import runner_checkout

    return runner_checkout(
        git_http.repo_url("example", "kb"),
        tmp_path / "work" / "kb",
        tmp_path / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="none",  # persist-credentials: false, as the templates check out
    )


def step_env(world: ReviewWorld, git_http) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"GITHUB_API_URL": world.harness.emulator.api_url, "GITHUB_SERVER_URL": git_http.url} | DIRECT


def test_digest_action_posts_writes_counts_and_a_summary_and_records_itself(
    world: ReviewWorld, git_http, slack_sink, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    env = step_env(world, git_http) | {"HOMEOSTAT_SLACK_WEBHOOK": slack_sink.url}
    run = run_action(
        REPO / "actions" / "digest",
        checkout(world, git_http, tmp_path),
        tmp_path,
        {"token": world.harness.token},
        env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["posted"] == "true"
    assert run.outputs["new-rules"] == "5" and run.outputs["overdue"] == "0"  # the example KB, new this week
    assert set(run.outputs) >= {
        "reconfirmed",
        "rejected-decisions",
        "updated-sections",
        "review-queue",
        "open-flags",
    }
    assert run.summary.startswith("## Homeostat digest: example/kb\n")
    assert "### New rules (5)" in run.summary
    [post] = slack_sink.posts
    assert post["text"].startswith("Homeostat digest for example/kb")
    state = world.bare().read_files("refs/heads/homeostat/state")
    assert any(path.startswith("digests/") for path in state), "the digest was not recorded"
    assert git_http.pushes() and all(p.user == "x-access-token" for p in git_http.pushes())

    again = run_action(  # the job retried, or run by hand the same week: one post all the same
        REPO / "actions" / "digest",
        checkout(world, git_http, tmp_path / "again"),
        tmp_path / "again",
        {"token": world.harness.token},
        env,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.outputs["posted"] == "false" and len(slack_sink.posts) == 1
    assert again.summary.startswith("## Homeostat digest\n\nNothing posted: this week's digest (")


def test_digest_action_print_posts_nothing_and_an_unset_variable_is_a_notice(
    world: ReviewWorld, git_http, slack_sink, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    run = run_action(
        REPO / "actions" / "digest",
        checkout(world, git_http, tmp_path),
        tmp_path,
        {"token": world.harness.token, "print": "true"},
        step_env(world, git_http),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "*New rules* (5)" in run.stdout and run.outputs["posted"] == "false"
    assert slack_sink.posts == [] and git_http.pushes() == []

    unset = run_action(
        REPO / "actions" / "digest",
        checkout(world, git_http, tmp_path / "again"),
        tmp_path / "again",
        {"token": world.harness.token},
        step_env(world, git_http),
    )
    assert unset.returncode == 0, unset.stderr
    assert "::notice title=homeostat digest::HOMEOSTAT_SLACK_WEBHOOK is not set" in unset.stderr


def test_digest_action_refuses_a_print_value_that_is_not_a_boolean(
    world: ReviewWorld, tmp_path: Path
) -> None:
    run = run_action(REPO / "actions" / "digest", tmp_path, tmp_path, {"print": "yes"}, DIRECT)
    assert run.returncode == 2
    assert "the input print must be true or false, not 'yes'" in run.stderr


def test_review_merge_action_merges_every_open_review_pr(
    world: ReviewWorld, git_http, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    first = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    second = world.review_pr("bo", world.with_rule(section("billing-api-log-codes", "Log the decline code")))
    world.harness.merge_as(world.kb_repo, first, "ana")  # a person merged one: the other conflicts now
    world.approve(second, "cy")  # a member who wrote none of its lessons
    run = run_action(
        REPO / "actions" / "review-merge",
        checkout(world, git_http, tmp_path),
        tmp_path,
        {"token": world.harness.token},
        step_env(world, git_http),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["merged"] == "1" and run.outputs["left-open"] == "0" and run.outputs["pr-url"] == ""
    [url] = json.loads(run.outputs["merged-urls"])
    assert url.endswith(f"/pull/{second}")
    assert f"| [#{second}]({url}) | merged | rebuilt on main and merged |" in run.summary
    assert world.state(second)["state"] == "merged"
    assert git_http.pushes() and all(
        p.user == "x-access-token" and p.status == 200 for p in git_http.pushes()
    )


def test_review_merge_action_leaves_a_conflict_open_with_a_warning(
    world: ReviewWorld, git_http, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    topic = "knowledge/billing/api/errors.md"
    text = world.main_text(topic)
    first = world.review_pr("ana", {topic: text.replace("Never pick a status code", "Never choose a status")})
    second = world.review_pr("bo", {topic: text.replace("Never pick a status code", "Do not pick a status")})
    world.harness.merge_as(world.kb_repo, first, "ana")
    world.approve(second, "cy")
    run = run_action(
        REPO / "actions" / "review-merge",
        checkout(world, git_http, tmp_path),
        tmp_path,
        {"token": world.harness.token, "pr": str(second)},
        step_env(world, git_http),
    )
    assert run.returncode == 1
    assert run.outputs["left-open"] == "1" and run.outputs["merged"] == "0"
    assert run.outputs["pr-url"].endswith(f"/pull/{second}")
    assert (
        f"::warning title=homeostat review merge::PR #{second} rule billing-api-error-status-table"
        in run.stderr
    )
    assert len(world.state(second)["comments"]) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"pr": "seven"}, "the input pr must be a PR number or all, not 'seven'"),
        ({"dry-run": "maybe"}, "the input dry-run must be true or false, not 'maybe'"),
    ],
)
def test_review_merge_action_refuses_bad_inputs(tmp_path: Path, inputs: dict[str, str], message: str) -> None:
    run = run_action(REPO / "actions" / "review-merge", tmp_path, tmp_path, inputs, DIRECT)
    assert run.returncode == 2
    assert message in run.stderr
