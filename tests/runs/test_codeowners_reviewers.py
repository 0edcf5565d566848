"""Review PRs ask the code repo's own CODEOWNERS (`team.reviewersFrom: codeowners`): only KB members
are requested, the others are named as skipped, and nobody to ask falls back to the usual choice."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dailyworld import DailyWorld
from gitfixtures import git
from hostkit import HostHarness, PullSpec, ThreadSpec
from kbfactory import example_files, write_files

from homeostat.core.config import Config
from homeostat.core.daily.codeowners_lookup import owners_of, parse_codeowners, pick_reviewers, sample_path

CODEOWNERS = """\
# owners of the billing service
*                   @ana
src/billing/api/    @cy @outsider @example/payments   # the API
src/billing/api/legacy/                                  # nobody owns the legacy code
*.sql               dee@example.dev
"""


@pytest.fixture
def config() -> Config:
    text = example_files()["homeostat.yaml"]
    dee = "      role: junior\n      teams: [web]\n"
    assert dee in text
    return Config.model_validate(yaml.safe_load(text.replace(dee, dee + "      email: dee@example.dev\n")))


# --- reading the file (pure) ----------------------------------------------------------------------


def test_the_last_matching_line_owns_a_path_as_github_reads_it() -> None:
    lines = parse_codeowners(CODEOWNERS + "docs/*  @docs\n/build/  @build\napps/ @apps\n")
    assert owners_of(lines, "README.md") == ("@ana",)
    assert owners_of(lines, "src/billing/api/refunds.py") == ("@cy", "@outsider", "@example/payments")
    assert owners_of(lines, "src/billing/api/legacy/old.py") == ()
    assert owners_of(lines, "migrations/deep/0042.sql") == ("dee@example.dev",)
    assert owners_of(lines, "docs/a.md") == ("@docs",)
    assert owners_of(lines, "docs/guide/a.md") == ("@ana",)  # `docs/*` owns docs' own files only
    assert owners_of(lines, "build/out/x") == ("@build",)
    assert owners_of(lines, "deep/apps/x.ts") == ("@apps",)


def test_a_glob_stands_for_one_path_it_matches() -> None:
    assert sample_path("src/billing/api/**") == "src/billing/api/x"
    assert sample_path("**/*.sql") == "x.sql"
    assert sample_path("web/{components,routes}/*.tsx") == "web/components/x.tsx"


def test_only_kb_members_are_requested_and_the_others_are_named(config: Config) -> None:
    lines = parse_codeowners(CODEOWNERS)
    covered = [(lines, ["src/billing/api/**", "lang:python", "src/billing/api/legacy/**"])]
    pick = pick_reviewers(config, covered, "bo", team_reviewers=True)
    assert (pick.request.users, pick.request.teams) == (("cy", "ana"), ("payments",))
    assert pick.skipped == ("@outsider",)
    assert pick.unowned == ("src/billing/api/legacy/**",)
    members = pick_reviewers(config, covered, "bo", team_reviewers=False)
    assert members.request.users == ("cy", "ana")  # the payments team's members but bo, the author
    by_email = pick_reviewers(config, [(lines, ["migrations/**/*.sql"])], "bo", team_reviewers=True)
    assert by_email.request.users == ("dee",)
    nobody = pick_reviewers(config, [(parse_codeowners("* @outsider\n"), ["**"])], "bo", team_reviewers=True)
    assert nobody.empty and nobody.skipped == ("@outsider",)


# --- the host API ---------------------------------------------------------------------------------


@pytest.fixture(params=["github", "bitbucket"])
def harness(request: pytest.FixtureRequest) -> HostHarness:
    return request.getfixturevalue(f"{request.param}_harness")  # type: ignore[no-any-return]


def test_a_code_repos_file_is_read_through_the_host_api(harness: HostHarness) -> None:
    repo = harness.create_repo("acme", "ledger")
    where = ".github/CODEOWNERS" if harness.name == "github" else ".bitbucket/CODEOWNERS"
    harness.merged_pull(
        repo,
        PullSpec("ana", "Owners", {where: CODEOWNERS}, dt.datetime.now(dt.UTC) - dt.timedelta(days=3)),
    )
    host = harness.adapter()
    assert host.file_text(repo, where) == CODEOWNERS
    assert host.file_text(repo, "CODEOWNERS") is None  # no such file
    assert host.file_text(repo, where.split("/")[0]) is None  # a folder


# --- a daily run's review PR ----------------------------------------------------------------------


def use_codeowners(world: DailyWorld, where: str) -> None:
    """The KB asks CODEOWNERS; the billing repo has one (merged days ago, outside the run's window)."""
    config = world.work / "homeostat.yaml"
    text = config.read_text()
    config.write_text(
        text.replace("  reviewers: [ana]\n", "  reviewers: [ana]\n  reviewersFrom: codeowners\n", 1)
    )
    git(world.work, "commit", "--quiet", "-am", "reviewers from CODEOWNERS")
    git(world.work, "push", "--quiet", "origin", "HEAD:main")
    world.merged_pull("billing", PullSpec("ana", "Owners", {where: CODEOWNERS}, world.hours_ago(72)))


def a_review_lesson(world: DailyWorld) -> None:
    thread = ThreadSpec(
        "dee",
        "Check refund limits with RefundPolicy.allows before posting.",
        "src/billing/api/limits.py",
        followed_by_commit=True,
    )
    world.merged_pull(
        "billing",
        PullSpec("bo", "Refund limits", {thread.path: "x = 1\n"}, world.hours_ago(3), threads=(thread,)),
    )


@pytest.fixture
def github_world(
    github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DailyWorld:  # type: ignore[no-untyped-def]
    return DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch)


@pytest.fixture
def bitbucket_world(
    bitbucket_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DailyWorld:  # type: ignore[no-untyped-def]
    return DailyWorld(bitbucket_harness, anthropic_stub, tmp_path, monkeypatch)


def review_pr(world: DailyWorld) -> dict[str, object]:
    review = next(r for r in world.records().values() if r.outcome == "review")
    assert review.pr is not None
    return world.pull_state(review.pr.number)


def test_the_review_pr_asks_the_kb_members_codeowners_names_on_github(
    github_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    use_codeowners(world, ".github/CODEOWNERS")
    a_review_lesson(world)
    assert world.daily() == 0
    out = capsys.readouterr().out
    state = review_pr(world)
    assert (state["reviewers"], state["teams"]) == (["cy"], ["payments"])  # not team.reviewers' ana
    assert (
        "reviewers from example/billing:.github/CODEOWNERS: @cy, team payments; skipped @outsider (not KB members)"
        in out
    )


def test_the_review_pr_asks_the_kb_members_codeowners_names_on_bitbucket(
    bitbucket_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bitbucket takes no team reviewers: the team's members are asked (bo wrote the lesson)."""
    world = bitbucket_world
    use_codeowners(world, ".bitbucket/CODEOWNERS")
    a_review_lesson(world)
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert sorted(review_pr(world)["reviewers"]) == ["ana", "cy"]  # type: ignore[arg-type]
    assert "reviewers from example/billing:.bitbucket/CODEOWNERS: @cy, @ana; skipped @outsider" in out


def test_a_code_repo_without_codeowners_falls_back_to_the_usual_reviewers(
    github_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = github_world
    use_codeowners(world, "OWNERS.txt")  # not where GitHub reads CODEOWNERS
    a_review_lesson(world)
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert review_pr(world)["reviewers"] == ["ana"]  # team.reviewers
    assert (
        "example/billing has no CODEOWNERS the token can read (.github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS)"
        in out
    )
    assert "reviewers: none from CODEOWNERS; asking the usual reviewers" in out


def test_a_bad_reviewers_from_is_one_line_naming_the_key(tmp_path: Path) -> None:
    files = dict(example_files())
    files["homeostat.yaml"] = files["homeostat.yaml"].replace(
        "  reviewers: [ana]\n", "  reviewers: [ana]\n  reviewersFrom: owners\n", 1
    )
    kb = write_files(tmp_path / "kb", dict(files))
    done = subprocess.run(
        [sys.executable, "-m", "homeostat", "validate", "--kb", str(kb)], capture_output=True, text=True
    )
    assert done.returncode == 1
    [line] = [line for line in done.stdout.splitlines() if "reviewersFrom" in line]
    assert line.startswith("homeostat.yaml:") and "'config' or 'codeowners'" in line
