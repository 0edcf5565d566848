"""Every action's `run:` steps through the real image, the way a GitHub runner runs them.

The image is built from the real Dockerfile (tests/imagekit.py: a debootstrap stand-in for its base,
cached between runs). Each case runs an action's steps with tests/actionkit.py as the runner's user
(uid 1001), inputs mapped to env, `$GITHUB_OUTPUT` and `$GITHUB_STEP_SUMMARY` in `$RUNNER_TEMP`, and
`docker` a shim to a root podman service, against the emulators and the model stub on the host
network. Every case also checks that what the container wrote in the workspace belongs to the
runner's user. The module skips, saying why, only where podman cannot run.

Adding an action: write `setup(request, runner) -> Prepared` that
makes its world (use `request.getfixturevalue` for the emulators) and a workspace under
`runner.root`, and `check(run, prepared)` asserting what a user would see (outputs, summary,
annotations, what reached the emulators); then add `ImageCase("<folder under actions/>", setup,
check)` to CASES.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from actionkit import ActionRun, run_action
from imagekit import (
    IMAGE_REPOSITORY,
    LIMITS,
    RUNNER_UID,
    Daemon,
    build_lock,
    ensure_base,
    ensure_image,
    podman_base,
    start_daemon,
    why_not,
    write_docker_shim,
)
from kit import REPO

EXAMPLE_KB = REPO / "examples" / "kb"
PLANTED_RULE = "knowledge/core/log-with-fields.md"


@pytest.fixture(scope="session")
def image() -> str:
    reason = why_not()
    if reason:
        pytest.skip(f"the image cannot be built here: {reason}")
    with build_lock():
        return ensure_image(ensure_base())


@pytest.fixture(scope="session")
def daemon(image: str) -> Iterator[Daemon]:
    folder = Path(tempfile.mkdtemp(prefix="homeostat-daemon-", dir="/var/tmp"))
    folder.chmod(0o755)
    running = start_daemon(folder)
    yield running
    running.stop()
    shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Runner:
    """A runner's folders (readable by its user, unlike pytest's tmp_path) and what its steps see."""

    root: Path
    image: str
    env: dict[str, str]

    @property
    def inputs(self) -> dict[str, str]:
        """The image under test, as a team that mirrors the image names it."""
        return {"image": IMAGE_REPOSITORY, "version": self.image.rsplit(":", 1)[1]}

    def own(self, *paths: Path) -> None:
        """Hand files to the runner's user, as the runner's own checkout would have them."""
        for top in paths:
            for path in (top, *top.rglob("*")):
                os.lchown(path, RUNNER_UID, RUNNER_UID)


@pytest.fixture
def runner(image: str, daemon: Daemon) -> Iterator[Runner]:
    root = Path(tempfile.mkdtemp(prefix="homeostat-runner-", dir="/var/tmp"))
    root.chmod(0o755)
    shim = write_docker_shim(root / "bin", daemon)
    # A runner checks the action out into its own work folder (`_work/_actions/…`), readable by its
    # user: a clone under a private folder (mktemp -d is 0700) must not decide whether the steps run.
    shutil.copytree(REPO / "actions", root / "_actions")
    yield Runner(root, image, {"PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"})
    shutil.rmtree(root, ignore_errors=True)


@dataclass
class Prepared:
    workspace: Path
    inputs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    world: Any = None


@dataclass(frozen=True)
class ImageCase:
    action: str
    setup: Callable[[pytest.FixtureRequest, Runner], Prepared]
    check: Callable[[ActionRun, Prepared], None]


# --- validate: a KB with a finding, JSON on stdout ----------------------------------------------------


def validate_setup(request: pytest.FixtureRequest, runner: Runner) -> Prepared:
    workspace = runner.root / "work" / "kb"
    shutil.copytree(EXAMPLE_KB, workspace)
    rule = workspace / PLANTED_RULE
    rule.write_text(rule.read_text().replace("tokens: 61\n", "tokens: 61\ncolour: red\n"))
    runner.own(workspace)
    return Prepared(workspace, {"format": "json"})


def validate_check(run: ActionRun, prepared: Prepared) -> None:
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)  # the report alone, annotations apart
    assert report["errors"] >= 1
    assert run.outputs == {"errors": str(report["errors"]), "warnings": str(report["warnings"])}
    assert re.search(rf"^::error file={re.escape(PLANTED_RULE)},line=\d+,", run.stderr, re.MULTILINE)
    assert f"| `{PLANTED_RULE}` |" in run.summary


# --- daily: review threads on the emulators, PRs and the state branch pushed from the container --------


def daily_setup(request: pytest.FixtureRequest, runner: Runner) -> Prepared:
    from adapters.git.test_git_auth import with_a_review_thread
    from dailyworld import DailyWorld
    from hostkit import ThreadSpec
    from runnerkit import daily_env, runner_checkout
    from runs.daily.test_daily_e2e import pr

    from homeostat.adapters.git.plumbing import Git

    world = with_a_review_thread(
        DailyWorld(
            request.getfixturevalue("github_harness"),
            request.getfixturevalue("anthropic_stub"),
            request.getfixturevalue("tmp_path"),
            request.getfixturevalue("monkeypatch"),
        )
    )
    thread = ThreadSpec(
        author="dee",
        body="Check refund limits with RefundPolicy.allows before posting.",
        path="src/billing/api/limits.py",
        followed_by_commit=True,
    )
    pr(world, "billing", "bo", "Refund limits", thread)  # the middle band: a review PR
    # A Slack variable whose name is not HOMEOSTAT_*: it reaches the container by its configured name.
    bare = Git(world.harness.bare_path(world.kb_repo))
    main = bare.rev_parse("refs/heads/main")
    assert main
    config = bare.read_file(main, "homeostat.yaml") or b""
    sha = bare.commit_files(
        main, {"homeostat.yaml": config + b"notifications:\n  slackWebhookEnv: TEAM_SLACK_WEBHOOK\n"}, "Slack"
    )
    bare.run("update-ref", "refs/heads/main", sha)
    git_http = request.getfixturevalue("git_private")
    slack = request.getfixturevalue("slack_sink")
    workspace = runner_checkout(
        git_http.repo_url("example", "kb"),
        runner.root / "work" / "kb",
        runner.root / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="v7",  # the token only in an included file under $RUNNER_TEMP, which is not mounted
    )
    runner.own(workspace, runner.root / "runner-temp")
    env = daily_env(world, git_http.url) | {"TEAM_SLACK_WEBHOOK": slack.url}
    return Prepared(
        workspace, {"token": world.harness.token}, env, {"world": world, "git": git_http, "slack": slack}
    )


def daily_check(run: ActionRun, prepared: Prepared) -> None:
    world, git_http, slack = (prepared.world[k] for k in ("world", "git", "slack"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert (run.outputs["merged"], run.outputs["review"], run.outputs["decided"]) == ("1", "1", "2")
    urls = json.loads(run.outputs["pr-urls"])
    assert len(urls) == 2 and {u.rsplit("/", 1)[1] for u in urls} <= {str(n) for n in world.pulls()}
    assert world.bare().rev_parse("refs/heads/homeostat/state"), "the state branch was not pushed"
    pushes = git_http.pushes()
    assert pushes and all(p.user == "x-access-token" and p.status == 200 for p in pushes)
    assert "| Outcome | Confidence | Member | Lesson | Reason |" in run.summary
    assert all(url in run.summary for url in urls)
    assert slack.posts, "the Slack variable named by notifications.slackWebhookEnv did not reach the run"
    assert world.harness.token not in run.stdout + run.stderr


# --- deep-dive: a near-duplicate pair merged in one PR, pushed from the container, never merged --------


def deep_dive_setup(request: pytest.FixtureRequest, runner: Runner) -> Prepared:
    from dailyworld import DailyWorld
    from deepdiveworld import DeepDiveWorld, duplicate_files
    from runnerkit import daily_env, runner_checkout

    world = DailyWorld(
        request.getfixturevalue("github_harness"),
        request.getfixturevalue("anthropic_stub"),
        request.getfixturevalue("tmp_path"),
        request.getfixturevalue("monkeypatch"),
    )
    dd = DeepDiveWorld(world)
    dd.add(duplicate_files())
    git_http = request.getfixturevalue("git_private")
    workspace = runner_checkout(
        git_http.repo_url("example", "kb"),
        runner.root / "work" / "kb",
        runner.root / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="v7",
    )
    runner.own(workspace, runner.root / "runner-temp")
    env = daily_env(world, git_http.url)
    return Prepared(workspace, {"token": world.harness.token}, env, {"dd": dd, "git": git_http})


def deep_dive_check(run: ActionRun, prepared: Prepared) -> None:
    dd, git_http = prepared.world["dd"], prepared.world["git"]
    assert run.returncode == 0, run.stdout + run.stderr
    [pull] = dd.deep_dive_pulls()
    assert pull.merged_at is None  # a person merges it
    assert run.outputs["pr-url"].endswith(f"/pull/{pull.number}") and run.outputs["merged"] == "1"
    assert dd.world.bare().rev_parse("refs/heads/homeostat/state"), "the state branch was not pushed"
    pushes = git_http.pushes()
    assert pushes and all(p.user == "x-access-token" and p.status == 200 for p in pushes)
    assert run.summary.startswith("## Homeostat deep dive\n") and run.outputs["pr-url"] in run.summary
    assert dd.world.harness.token not in run.stdout + run.stderr


# --- digest and review-merge: a KB on the GitHub emulator, fetched and pushed from the container ---------


def _weekly_workspace(
    request: pytest.FixtureRequest, runner: Runner
) -> tuple[Any, Any, Path, dict[str, str]]:
    """A KB repo on the emulator behind a private git server, checked out as checkout v7 leaves it."""
    from reviewworld import ReviewWorld
    from runnerkit import runner_checkout

    world = ReviewWorld(
        request.getfixturevalue("github_harness"),
        request.getfixturevalue("tmp_path"),
        request.getfixturevalue("monkeypatch"),
    )
    git_http = request.getfixturevalue("git_private")
    workspace = runner_checkout(
        git_http.repo_url("example", "kb"),
        runner.root / "work" / "kb",
        runner.root / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="v7",
    )
    runner.own(workspace, runner.root / "runner-temp")
    env = {"GITHUB_API_URL": world.harness.emulator.api_url, "GITHUB_SERVER_URL": git_http.url}
    return world, git_http, workspace, env


def digest_setup(request: pytest.FixtureRequest, runner: Runner) -> Prepared:
    world, git_http, workspace, env = _weekly_workspace(request, runner)
    slack = request.getfixturevalue("slack_sink")
    env["HOMEOSTAT_SLACK_WEBHOOK"] = slack.url
    return Prepared(
        workspace, {"token": world.harness.token}, env, {"world": world, "git": git_http, "slack": slack}
    )


def digest_check(run: ActionRun, prepared: Prepared) -> None:
    world, git_http, slack = (prepared.world[k] for k in ("world", "git", "slack"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["posted"] == "true" and run.outputs["new-rules"] == "5"
    [post] = slack.posts
    assert post["text"].startswith("Homeostat digest for example/kb") and post["blocks"]
    assert run.summary.startswith("## Homeostat digest: example/kb\n")
    state = world.bare().read_files("refs/heads/homeostat/state")
    assert any(path.startswith("digests/") for path in state), "the digest was not recorded"
    assert git_http.pushes() and all(
        p.user == "x-access-token" and p.status == 200 for p in git_http.pushes()
    )
    assert world.harness.token not in run.stdout + run.stderr


def review_merge_setup(request: pytest.FixtureRequest, runner: Runner) -> Prepared:
    from reviewworld import section

    world, git_http, workspace, env = _weekly_workspace(request, runner)
    first = world.review_pr(
        "ana", world.with_rule(section("billing-api-retry-refunds", "Retry refunds with backoff"))
    )
    second = world.review_pr("bo", world.with_rule(section("billing-api-log-codes", "Log the decline code")))
    world.harness.merge_as(world.kb_repo, first, "ana")  # the other one conflicts for git now
    world.approve(second, "cy")  # a member who wrote none of its lessons
    return Prepared(
        workspace,
        {"token": world.harness.token, "pr": str(second)},
        env,
        {"world": world, "git": git_http, "pr": second},
    )


def review_merge_check(run: ActionRun, prepared: Prepared) -> None:
    world, git_http, number = (prepared.world[k] for k in ("world", "git", "pr"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["merged"] == "1" and run.outputs["pr-url"].endswith(f"/pull/{number}")
    assert world.state(number)["state"] == "merged"
    topic = world.main_text("knowledge/billing/api/errors.md")
    assert "{#billing-api-retry-refunds}" in topic and "{#billing-api-log-codes}" in topic
    assert "| merged | rebuilt on main and merged |" in run.summary
    assert git_http.pushes() and all(
        p.user == "x-access-token" and p.status == 200 for p in git_http.pushes()
    )


CASES = [
    ImageCase("validate", validate_setup, validate_check),
    ImageCase("daily", daily_setup, daily_check),
    ImageCase("deep-dive", deep_dive_setup, deep_dive_check),
    ImageCase("digest", digest_setup, digest_check),
    ImageCase("review-merge", review_merge_setup, review_merge_check),
]


@pytest.fixture
def git_private(github_harness) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    from emulators.git_http import GitHttpServer

    server = GitHttpServer(github_harness.root, {github_harness.token}, private=True)
    yield server
    server.close()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.action)
def test_action_runs_in_the_image(case: ImageCase, runner: Runner, request: pytest.FixtureRequest) -> None:
    prepared = case.setup(request, runner)
    before = {p: p.stat().st_mtime_ns for p in prepared.workspace.rglob("*")}
    run = run_action(
        runner.root / "_actions" / case.action,
        prepared.workspace,
        runner.root,
        prepared.inputs | runner.inputs,
        prepared.env | runner.env,
        user=RUNNER_UID,
    )
    case.check(run, prepared)
    written = [p for p in prepared.workspace.rglob("*") if before.get(p) != p.stat().st_mtime_ns]
    foreign = [str(p) for p in written if p.lstat().st_uid != RUNNER_UID]
    assert not foreign, f"the container left files the runner's user does not own: {foreign[:5]}"


def test_the_image_runs_as_a_non_root_user(image: str) -> None:
    """With no --user (a Bitbucket pipe, a plain docker run) it runs as its own unprivileged user."""
    done = subprocess.run(
        [*podman_base(), "run", "--rm", *LIMITS, "--network=host", "--entrypoint", "id", image],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert re.match(r"uid=10001\(homeostat\) gid=10001\(homeostat\)", done.stdout), done.stdout


# --- the Bitbucket daily pipe: no arguments, HOMEOSTAT_COMMAND, the Pipelines proxy ---------------------


def test_the_daily_pipe_pushes_through_the_pipelines_proxy(
    image: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The pipe as Bitbucket starts it: the image with no arguments, the clone mounted at its own path,
    its origin `http://bitbucket.org/…` behind the Pipelines proxy that the clone's config names as
    localhost:29418 (nobody, in a pipe's container). The container runs as the clone's owner here,
    an assumption about Pipelines no Bitbucket account could check when this was written."""
    from adapters.git.test_git_auth import with_a_review_thread
    from dailyworld import DailyWorld
    from emulators.git_http import GitHttpServer, PipelinesProxy
    from gitfixtures import git

    harness = request.getfixturevalue("bitbucket_harness")
    world = with_a_review_thread(
        DailyWorld(
            harness,
            request.getfixturevalue("anthropic_stub"),
            tmp_path,
            request.getfixturevalue("monkeypatch"),
        )
    )
    pipeline_token = "pipelines-" + "k7" * 10
    server = GitHttpServer(harness.root, {pipeline_token}, private=True)
    proxy = PipelinesProxy(server, pipeline_token)
    build = Path(tempfile.mkdtemp(prefix="homeostat-pipe-", dir="/var/tmp"))
    try:
        build.chmod(0o755)
        clone = build / "build"
        git(build, "clone", "--quiet", str(harness.bare_path(world.kb_repo)), str(clone))
        origin = "http://bitbucket.org/example/kb"
        git(clone, "remote", "set-url", "origin", origin)
        git(clone, "config", f"http.{origin}.proxy", "http://localhost:9/")
        for path in (clone, *clone.rglob("*")):
            os.lchown(path, RUNNER_UID, RUNNER_UID)
        variables = {
            "HOMEOSTAT_COMMAND": "daily",
            "HOMEOSTAT_DIR": str(clone),
            "HOMEOSTAT_BITBUCKET_TOKEN": harness.token,
            "BITBUCKET_API_URL": harness.api_url,
            "BITBUCKET_GIT_HTTP_ORIGIN": origin,
            "BITBUCKET_BUILD_NUMBER": "7",
            "BITBUCKET_CLONE_DIR": str(clone),
            "HOMEOSTAT_BITBUCKET_PROXY": proxy.url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "ANTHROPIC_BASE_URL": world.stub.url,
            "CI": "true",
        }
        done = subprocess.run(
            [
                *podman_base(),
                "run",
                "--rm",
                *LIMITS,
                "--network=host",
                "--user",
                f"{RUNNER_UID}:{RUNNER_UID}",
                "--volume",
                f"{clone}:{clone}",
                "--workdir",
                str(clone),
                *(arg for name, value in variables.items() for arg in ("--env", f"{name}={value}")),
                image,
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        proxy.close()
        server.close()
        shutil.rmtree(build, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(path.startswith(origin) for path in proxy.requests)
    assert server.pushes() and all(p.user == "x-token-auth" and p.status == 200 for p in server.pushes())
    assert world.bare().rev_parse("refs/heads/homeostat/state"), "the state branch was not pushed"
