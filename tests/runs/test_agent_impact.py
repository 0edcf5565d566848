"""`validate --base REF`: what a KB pull request changes for agents, in the log, the JSON report, the
job summary and the Code Insights report; `--max-budget-growth` fails the check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitfixtures import commit, git, make_origin_and_clone
from kbfactory import example_files

from homeostat.cli import main
from homeostat.core.measure.agent_impact import Growth, parse_growth, sample_path
from homeostat.core.selection.globs import glob_matches
from homeostat.errors import ConfigError

TODAY = ["--today", "2026-11-29"]
NEW_RULE = """
## Return problem details for every error {#billing-api-problem-details}
<!-- homeostat
scope: ["src/billing/api/handlers/**/*.py"]
status: accepted
kind: convention
approvedBy: [ana]
source:
  type: pr-feedback
  url: https://github.com/example/billing/pull/77#discussion_r9100000301
  author: ana
  changedCode: true
created: 2026-11-10
lastConfirmed: 2026-11-20
score: 4
tokens: 115
-->
### Rule
Every error response from a billing handler carries an RFC 9457 problem-details body with `type`, `title`, `status` and `detail`; build it with `problem()` from `src/billing/api/errors.py` and never hand-write the JSON. Clients parse `type` to decide whether to retry, so an error without it is retried forever by the checkout client, which has happened twice this quarter.

### Why
The checkout client retried a bare 500 body for an hour.
"""
ERRORS = "knowledge/billing/api/errors.md"


@pytest.fixture
def pr(tmp_path: Path) -> Path:
    """A KB clone whose `main` (pushed) serves the example's rules within a small budget, and a
    branch `pr` (not pushed) adding a narrower rule that takes the place of one of them."""
    files = dict(example_files())
    files["homeostat.yaml"] += "\ndistribution:\n  tokenBudget: 500\n"
    _, clone = make_origin_and_clone(tmp_path, files)
    git(clone, "checkout", "--quiet", "-b", "pr")
    commit(clone, {ERRORS: files[ERRORS] + NEW_RULE}, "add a rule")
    return clone


def validate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["validate", *argv, *TODAY])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_log_says_what_changes_for_agents(pr: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate(capsys, "--kb", str(pr), "--base", "main")
    assert code == 0
    assert "agents: against main, 1 rules changed" in out
    assert "agents: area billing/api: 165 -> 280 tokens (+115)" in out
    assert "agents: AGENTS.md block (billing): " in out
    assert (
        "agents: log-with-fields no longer fits the default budget at "
        "src/billing/api/handlers/homeostat-sample.py (pushed out by billing-api-problem-details)"
    ) in out


def test_the_json_shape_is_pinned(pr: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = validate(capsys, "--kb", str(pr), "--base", "main", "--format", "json")
    impact = json.loads(out)["agentImpact"]
    assert code == 0
    assert set(impact) == {
        "base",
        "tokens",
        "changedRules",
        "areas",
        "exports",
        "pushedOut",
        "unreachable",
        "pathsChecked",
        "pathsCapped",
        "maxBudgetGrowth",
        "overGrowth",
    }
    assert impact["base"] == "main" and impact["changedRules"] == 1
    assert set(impact["tokens"]) == {"base", "head", "added", "removed"}
    assert impact["areas"] == [
        {
            "area": "billing/api",
            "baseRules": 2,
            "headRules": 3,
            "baseTokens": 165,
            "headTokens": 280,
            "delta": 115,
        }
    ]
    [agents] = [e for e in impact["exports"] if e["format"] == "agents"]
    assert set(agents) == {"repo", "format", "file", "baseTokens", "headTokens", "delta", "leftOut"}
    assert agents["repo"] == "billing" and agents["file"] == "AGENTS.md block" and agents["delta"] > 0
    assert impact["pushedOut"] == [
        {
            "rule": "log-with-fields",
            "path": "src/billing/api/handlers/homeostat-sample.py",
            "by": ["billing-api-problem-details"],
        }
    ]
    assert impact["unreachable"] == [] and impact["overGrowth"] == []


def test_a_rule_that_fits_nowhere_is_unreachable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = dict(example_files())
    files["homeostat.yaml"] += "\ndistribution:\n  tokenBudget: 300\n"
    _, clone = make_origin_and_clone(tmp_path, files)
    commit(clone, {ERRORS: files[ERRORS] + NEW_RULE}, "add a rule")
    code, out, _ = validate(capsys, "--kb", str(clone), "--base", "origin/main", "--format", "json")
    assert json.loads(out)["agentImpact"]["unreachable"] == [
        {
            "rule": "billing-api-problem-details",
            "area": "billing/api",
            "paths": ["src/billing/api/handlers/homeostat-sample.py"],
        }
    ]


def test_max_budget_growth_fails_the_check_in_tokens_or_percent(
    pr: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = validate(capsys, "--kb", str(pr), "--base", "main", "--max-budget-growth", "100")
    assert code == 1
    assert "agents: over the limit: the KB's served rules grew from " in out
    assert "more than --max-budget-growth 100 tokens" in out
    assert validate(capsys, "--kb", str(pr), "--base", "main", "--max-budget-growth", "1000")[0] == 0
    assert validate(capsys, "--kb", str(pr), "--base", "main", "--max-budget-growth", "5%")[0] == 1
    assert validate(capsys, "--kb", str(pr), "--base", "main", "--max-budget-growth", "90%")[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base", "nosuch"], "--base nosuch: nosuch is not a branch, tag or commit in "),
        (["--base", "main", "--max-budget-growth", "lots"], "--max-budget-growth 'lots': give tokens"),
        (["--max-budget-growth", "10%"], "--max-budget-growth needs a base to compare with: pass --base REF"),
    ],
)
def test_bad_input_is_one_line(
    pr: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = validate(capsys, "--kb", str(pr), *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err


def test_a_base_without_a_kb_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, clone = make_origin_and_clone(tmp_path, {"README.md": "the KB comes next\n"})
    commit(clone, dict(example_files()), "the KB")
    code, _, err = validate(capsys, "--kb", str(clone), "--base", "HEAD~1")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--base HEAD~1: HEAD~1: no homeostat.yaml at the root of that tree" in err


def test_in_github_actions_the_pull_requests_base_goes_in_the_job_summary(
    pr: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_BASE_REF", "main")  # what GitHub sets on a pull_request event
    code, _, _ = validate(capsys, "--kb", str(pr))
    assert code == 0
    table = summary.read_text(encoding="utf-8")
    assert "### What agents will get (against `origin/main`)" in table
    assert "| area `billing/api` | 165 | 280 | +115 |" in table
    assert "**No longer fit the default budget:** `log-with-fields` at " in table
    assert "(by `billing-api-problem-details`)" in table


def test_a_shallow_clone_without_the_base_is_a_note_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, clone = make_origin_and_clone(tmp_path, dict(example_files()), branch="trunk")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")  # not in this clone
    code, out, err = validate(capsys, "--kb", str(clone))
    assert code == 0 and "agents:" not in out
    assert "homeostat: no agent-impact table: --base main: origin/main nor main is not a branch" in err
    assert "fetch-depth: 0" in err
    # ... but a limit that cannot be checked is a failure, not a pass
    assert validate(capsys, "--kb", str(clone), "--max-budget-growth", "10")[0] == 2


def test_inside_bitbucket_pipelines_the_report_carries_the_numbers(
    pr: Path,
    bitbucket_harness,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = bitbucket_harness.create_repo("acme", "kb")
    sha = bitbucket_harness.head(repo)
    for name, value in {
        "BITBUCKET_BUILD_NUMBER": "41",
        "BITBUCKET_COMMIT": sha,
        "BITBUCKET_WORKSPACE": "acme",
        "BITBUCKET_REPO_SLUG": "kb",
        "BITBUCKET_PR_DESTINATION_BRANCH": "main",
        "HOMEOSTAT_BITBUCKET_PROXY": bitbucket_harness.proxy_url,
    }.items():
        monkeypatch.setenv(name, value)
    code, _, err = validate(capsys, "--kb", str(pr), "--max-budget-growth", "50")
    assert code == 1
    assert "posted Code Insights report homeostat-validate" in err
    report = bitbucket_harness.reports(repo, sha)["homeostat-validate"]
    assert report["result"] == "FAILED"
    numbers = {d["title"]: d["value"] for d in report["data"]}
    assert numbers["Tokens added for agents"] == 115 and numbers["Rules pushed out of the budget"] == 1
    assert "Against origin/main: 1 rules changed" in report["details"]
    assert "more than --max-budget-growth 50 tokens" in report["details"]


@pytest.mark.parametrize(
    "glob",
    [
        "src/billing/api/**/*.py",
        "src/**",
        "**/*.ts",
        "web/*.{ts,tsx}",
        "docs/[a-c]*.md",
        "Makefile",
        "src/?.py",
    ],
)
def test_a_sample_path_is_one_the_glob_matches(glob: str) -> None:
    path = sample_path(glob)
    assert path is not None and glob_matches(glob, path)


def test_growth_is_tokens_or_a_percentage() -> None:
    assert parse_growth("500") == Growth(500, False)
    assert parse_growth("12.5%") == Growth(12.5, True)
    assert Growth(10, True).exceeded(100, 111) and not Growth(10, True).exceeded(100, 110)
    assert Growth(10, True).exceeded(0, 1)  # anything from nothing is past any percentage
    assert not Growth(0, False).exceeded(100, 90)  # shrinking never fails
    for bad in ("", "ten", "-5", "1.5", "5%%"):
        with pytest.raises(ConfigError):
            parse_growth(bad)
