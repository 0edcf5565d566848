"""Auto-merge and branch protection, each supported setup and each broken one, end to end.

The KB's workflows are the ones `homeostat init` writes (with and without `--app`), pushed to the KB
repo on the GitHub emulator, which runs their `pull_request` jobs the way GitHub does: not for events
the workflow's GITHUB_TOKEN caused, not for a `[skip ci]` head, and it enforces required checks,
approvals (never one's own) and rulesets with their bypass lists. The daily run is the real CLI with
the token the daily action hands it (`HOMEOSTAT_GITHUB_TOKEN`); doctor reads the same live rules.
Bitbucket: its merge checks, enforced (Premium) or only advisory, and its pull-request pipelines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from emulators.github_rules import ACTIONS_APP_ID
from gitfixtures import git
from hostkit import PullSpec, ThreadSpec

from homeostat.cli import main
from homeostat.core.daily import auto_merge
from homeostat.core.hosts import CheckState, MergeRules, RuleSet
from homeostat.errors import ConfigError
from homeostat.runs.merge_gate import CheckWait, check_wait_from_env, wait_for_checks, with_refusal

APP_ID = 424242
LESSON = "Raise RefundDeclined from billing.errors instead of returning None."


def init_workflows(world: DailyWorld, *flags: str) -> None:
    """`homeostat init` in a clone of the KB (its homeostat.yaml already there), committed and pushed."""
    work = world.work
    git(work, "pull", "--quiet", "origin", "main")
    assert main(["init", "--kb", str(work), "--yes", *flags]) == 0
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "homeostat init")
    git(work, "push", "--quiet", "origin", "HEAD:main")


def one_confident_lesson(world: DailyWorld) -> None:
    world.merged_pull(
        "billing",
        PullSpec(
            author="bo",
            title="Refunds",
            files={"src/billing/api/refunds.py": "x = 1\n"},
            merged_at=world.hours_ago(3),
            threads=(
                ThreadSpec(
                    author="ana", body=LESSON, path="src/billing/api/refunds.py", followed_by_commit=True
                ),
            ),
        ),
    )


def run_daily(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    code = world.daily()
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    return out.out


def daily_as(world: DailyWorld, token: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The daily run with `token` as the daily action passes it (HOMEOSTAT_GITHUB_TOKEN)."""
    world.monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", token)
    return run_daily(world, capsys)


def the_daily_pull(world: DailyWorld) -> Any:
    [pull] = [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/daily-bo")]
    return pull


def the_record(world: DailyWorld) -> Any:
    [record] = [r for r in world.records().values() if r.kind == "review-thread"]
    return record


def notices(world: DailyWorld) -> list[str]:
    [report] = world.state().runs.values()
    return [n.message for n in report.notices if n.kind == "merge-refused"]


# --- GitHub: the daily run against each combination --------------------------------------------------


def test_the_actions_token_cannot_merge_past_required_checks_and_says_why(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default workflow's GITHUB_TOKEN: no workflow starts for its PR, so `validate` never reports."""
    init_workflows(world)
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",))
    one_confident_lesson(world)

    out = daily_as(world, world.harness.actions_token(), capsys)

    pull = the_daily_pull(world)
    assert pull.state == "open" and pull.merged_at is None
    log = world.harness.checks_log(world.kb_repo)
    assert log.workflow_runs == []  # neither the [skip ci] commit nor the plain one started anything
    assert [s.reason for s in log.suppressed][-1] == (
        "an event caused by the workflow's GITHUB_TOKEN starts no workflow"
    )
    why = "which never runs on a PR the workflow's GITHUB_TOKEN opened"
    [notice] = notices(world)
    assert why in notice and "`homeostat init --app --force`" in notice
    assert why in out
    assert "## Not merged" in pull.body and why in pull.body and "## Every decision" in pull.body
    record = the_record(world)
    assert (record.outcome, record.state) == ("review", "in-review") and why in record.reason


def test_an_app_on_the_rulesets_bypass_list_merges_at_once(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",), bypass_apps=(APP_ID,))
    one_confident_lesson(world)

    daily_as(world, world.harness.app_token(APP_ID), capsys)

    assert the_daily_pull(world).merged_at is not None
    assert "RefundDeclined" in world.main_files()["knowledge/billing/api/errors.md"]
    assert (the_record(world).outcome, notices(world)) == ("merged", [])


def test_an_app_token_waits_for_the_required_check_its_pr_starts_and_merges(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """No approval required, `validate` required, no bypass: the check runs on the app's PR."""
    init_workflows(world, "--app")
    world.harness.add_ruleset(world.kb_repo, "checks", checks=("validate",))
    one_confident_lesson(world)

    daily_as(world, world.harness.app_token(APP_ID), capsys)

    pull = the_daily_pull(world)
    assert pull.merged_at is not None
    runs = world.harness.checks_log(world.kb_repo).workflow_runs
    assert [(r.workflow, r.event, r.actor, r.jobs) for r in runs] == [
        (".github/workflows/homeostat-validate.yml", "synchronize", "homeostat-kb[bot]", ("validate",))
    ]
    assert runs[0].sha == pull.head_sha  # merged at the commit whose check passed
    assert the_record(world).outcome == "merged"


def test_an_app_without_a_bypass_cannot_approve_its_own_pr(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",))
    one_confident_lesson(world)

    daily_as(world, world.harness.app_token(APP_ID), capsys)

    pull = the_daily_pull(world)
    assert pull.merged_at is None
    [notice] = notices(world)
    assert "ruleset 'main' requires 1 approval, and nobody approves their own pull request" in notice
    assert "add the app (homeostat-kb[bot]) to the bypass list" not in notice  # the run names no id it lacks
    assert "bypass list of ruleset 'main'" in notice
    assert "## Not merged" in pull.body


def test_a_failing_required_check_is_named(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> None:
    init_workflows(world, "--app")
    world.harness.add_ruleset(world.kb_repo, "checks", checks=("validate",))
    world.harness.fail_check("validate")
    one_confident_lesson(world)

    daily_as(world, world.harness.app_token(APP_ID), capsys)

    assert the_daily_pull(world).merged_at is None
    [notice] = notices(world)
    assert "but `validate` failed on" in notice


def test_classic_protection_with_the_app_allowed_past_reviews_waits_for_the_check(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """The app may not read classic protection (it takes admin): the refusal names only the check,
    so the run waits for it; the allowance lets the app merge without the approval."""
    init_workflows(world, "--app")
    world.harness.protect_branch(world.kb_repo, "main", ("validate",), bypass_apps=(APP_ID,))
    one_confident_lesson(world)

    daily_as(world, world.harness.app_token(APP_ID), capsys)

    assert the_daily_pull(world).merged_at is not None


def test_an_unprotected_branch_merges_with_the_actions_token(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world)
    one_confident_lesson(world)
    daily_as(world, world.harness.actions_token(), capsys)
    assert the_daily_pull(world).merged_at is not None


# --- the emulator models the rules it is trusted with ------------------------------------------------


def test_nobody_approves_their_own_pr_and_the_actions_integration_is_no_bypass_actor(
    world: DailyWorld,
) -> None:
    from github import Auth, Github

    harness = world.harness
    token = harness.app_token(APP_ID)
    harness.push_commit(world.kb_repo, "topic", {"a.md": "a\n"})
    client = Github(base_url=harness.emulator.api_url, auth=Auth.Token(token), retry=None)
    pr = client.get_repo("example/kb").create_pull(base="main", head="topic", title="t", body="")
    with pytest.raises(Exception, match="Can not approve your own pull request"):
        pr.create_review(event="APPROVE")
    with pytest.raises(ValueError, match="Actor GitHub Actions integration must be part of"):
        harness.add_ruleset(world.kb_repo, "main", approvals=1, bypass_apps=(ACTIONS_APP_ID,))


# --- GitHub: doctor on the live combination ---------------------------------------------------------


def doctor(world: DailyWorld, capsys: pytest.CaptureFixture[str], token: str) -> dict[str, str]:
    world.monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", token)
    world.monkeypatch.setenv("GITHUB_API_URL", world.harness.emulator.api_url)
    capsys.readouterr()
    main(["doctor", "--kb", str(world.work), "--format", "json"])
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    return dict(checks["auto-merge"])


def admin(world: DailyWorld) -> str:
    return str(world.harness.add_token("lead", "admin", scopes=None))


def test_doctor_fails_the_default_workflow_on_a_branch_that_needs_an_approval(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world)
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",))
    found = doctor(world, capsys, admin(world))
    assert found["status"] == "fail"  # the example KB lets lessons merge unread (scoring.autoMerge)
    assert found["message"].startswith(
        "the daily run cannot merge its PRs into main with the secret HOMEOSTAT_GITHUB_TOKEN, else the"
        " workflow's GITHUB_TOKEN: ruleset 'main' requires 1 approval"
    )
    assert "every lesson it would merge waits for a person instead" in found["message"]
    assert "homeostat init --app --force" in found["fix"]


def test_doctor_fails_the_actions_token_on_a_required_check(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world)
    daily = world.work / ".github" / "workflows" / "homeostat-daily.yml"
    daily.write_text(
        daily.read_text().replace("secrets.HOMEOSTAT_GITHUB_TOKEN || github.token", "github.token")
    )
    world.harness.add_ruleset(world.kb_repo, "checks", checks=("validate",))
    found = doctor(world, capsys, admin(world))
    assert found["status"] == "fail"
    assert (
        "requires `validate`, which never runs on a PR the workflow's GITHUB_TOKEN opened" in found["message"]
    )
    assert found["fix"].startswith("merge with a GitHub App token: `homeostat init --app --force`")


def test_doctor_passes_an_app_on_the_bypass_list_it_reads_from_the_repo_variable(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.harness.set_variable(world.kb_repo, "HOMEOSTAT_APP_ID", str(APP_ID))
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",), bypass_apps=(APP_ID,))
    found = doctor(world, capsys, admin(world))
    assert found["status"] == "ok", found
    assert found["message"] == (
        "the daily run can merge its PRs into main with the app token of step app-token (app id in"
        " vars.HOMEOSTAT_APP_ID); it bypasses ruleset 'main'"
    )


def test_doctor_names_the_app_to_add_to_the_bypass_list(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.harness.set_variable(world.kb_repo, "HOMEOSTAT_APP_ID", str(APP_ID))
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, checks=("validate",), bypass_apps=(777,))
    found = doctor(world, capsys, admin(world))
    assert found["status"] == "fail"
    assert found["fix"].startswith(f"add the app (id {APP_ID}) to the bypass list of ruleset 'main'")


def test_doctor_says_the_app_waits_for_checks_it_starts(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.harness.set_variable(world.kb_repo, "HOMEOSTAT_APP_ID", str(APP_ID))
    world.harness.add_ruleset(world.kb_repo, "checks", checks=("validate",))
    found = doctor(world, capsys, admin(world))
    assert found["status"] == "ok"
    assert "it waits for `validate` to pass (its PRs start workflows)" in found["message"]


def test_doctor_without_admin_cannot_see_the_bypass_list_and_says_so(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(world, "--app")
    world.monkeypatch.setenv("HOMEOSTAT_APP_ID", str(APP_ID))  # the variable, set where doctor runs
    world.harness.add_ruleset(world.kb_repo, "main", approvals=1, bypass_apps=(APP_ID,))
    found = doctor(world, capsys, world.harness.add_token("writer", "write", scopes=None))
    assert found["status"] == "warn"
    assert "its bypass list is not readable with this token (it takes admin)" in found["message"]
    assert "admin token" in found["fix"]


# --- Bitbucket: merge checks ------------------------------------------------------------------------


@pytest.fixture
def bb_world(
    bitbucket_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DailyWorld:  # type: ignore[no-untyped-def]
    return DailyWorld(bitbucket_harness, anthropic_stub, tmp_path, monkeypatch)


def bb_doctor(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, str]]:
    world.monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", world.harness.token)
    world.monkeypatch.setenv("BITBUCKET_API_URL", world.harness.api_url)
    capsys.readouterr()
    main(["doctor", "--kb", str(world.work), "--format", "json"])
    return {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}


def bb_pull(world: DailyWorld) -> Any:
    state = world.harness.emulator.repo("example", "kb")
    [pull] = [p for p in state.pulls.values() if p.source.startswith("homeostat/daily-bo")]
    return pull


def test_bitbucket_enforced_approvals_block_the_daily_merge_and_it_says_so(
    bb_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(bb_world)
    bb_world.harness.add_merge_checks(bb_world.kb_repo, "main", approvals=1)
    one_confident_lesson(bb_world)
    run_daily(bb_world, capsys)
    pull = bb_pull(bb_world)
    assert pull.state == "OPEN"
    [notice] = notices(bb_world)
    assert "merge checks requires 1 approval, and nobody approves their own pull request" in notice
    assert "Bitbucket has no bypass for merge checks" in notice
    assert "## Not merged" in pull.description


def test_bitbucket_waits_for_the_pull_request_pipeline_and_merges(
    bb_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(bb_world)  # bitbucket-pipelines.yml: validate on every pull request
    bb_world.harness.add_merge_checks(bb_world.kb_repo, "main", builds=1)
    one_confident_lesson(bb_world)
    run_daily(bb_world, capsys)
    pull = bb_pull(bb_world)
    assert pull.state == "MERGED"
    assert the_record(bb_world).outcome == "merged"


def test_bitbucket_merge_checks_that_are_not_enforced_only_warn(
    bb_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(bb_world)
    bb_world.harness.add_merge_checks(bb_world.kb_repo, "main", approvals=2, enforced=False)
    one_confident_lesson(bb_world)
    run_daily(bb_world, capsys)
    assert bb_pull(bb_world).state == "MERGED"
    checks = bb_doctor(bb_world, capsys)
    assert checks["auto-merge"]["status"] == "ok"
    assert "merge checks only warn (nothing enforces them)" in checks["auto-merge"]["message"]


# --- the pieces, directly -----------------------------------------------------------------------------


def test_the_wait_gives_up_on_a_check_no_workflow_reports(world: DailyWorld) -> None:
    harness = world.harness
    sha = harness.push_commit(world.kb_repo, "topic", {"a.md": "a\n"})
    now = [0.0]
    wait = CheckWait(
        seconds=600,
        interval=15,
        appear=60,
        sleep=lambda s: now.__setitem__(0, now[0] + s),
        clock=lambda: now[0],
    )
    look = auto_merge.Outlook("main", waits_for=("ci",))
    reason = wait_for_checks(harness.adapter(), world.kb_repo, sha, look, wait)
    assert (
        reason
        == f"no workflow reported `ci` on {sha[:12]} within 60s (is there a job of that name on pull_request?)"
    )
    assert now[0] == 60


def test_the_commit_checks_of_both_hosts(world: DailyWorld) -> None:
    init_workflows(world, "--app")
    harness = world.harness
    token = harness.app_token(APP_ID)
    harness.push_commit(world.kb_repo, "topic", {"a.md": "a\n"})
    pull = harness.adapter(token).open_pull(world.kb_repo, "topic", "main", "t", "")
    assert harness.adapter().commit_checks(world.kb_repo, pull.head_sha) == {"validate": CheckState.SUCCESS}


def test_the_wait_setting_is_checked() -> None:
    assert check_wait_from_env({"HOMEOSTAT_CHECK_WAIT": "0"}).seconds == 0
    with pytest.raises(ConfigError, match="HOMEOSTAT_CHECK_WAIT='soon'"):
        check_wait_from_env({"HOMEOSTAT_CHECK_WAIT": "soon"})


def test_a_rerun_replaces_the_not_merged_section() -> None:
    once = with_refusal("Body.", "first")
    assert with_refusal(once, "second") == with_refusal("Body.", "second")
    assert "first" not in with_refusal(once, "second")


@pytest.mark.parametrize(
    ("token_expression", "kind", "or_actions"),
    [
        ("${{ github.token }}", "actions", False),
        ("${{ secrets.GITHUB_TOKEN }}", "actions", False),
        ("${{ secrets.HOMEOSTAT_GITHUB_TOKEN || github.token }}", "person", True),
        ("${{ secrets.BOT_PAT }}", "person", False),
        ("${{ steps.app-token.outputs.token }}", "app", False),
    ],
)
def test_the_daily_workflows_token_is_read_from_its_text(
    token_expression: str, kind: str, or_actions: bool
) -> None:
    text = (
        "jobs:\n  daily:\n    steps:\n"
        "      - id: app-token\n        uses: actions/create-github-app-token@abc\n"
        "        with:\n          app-id: ${{ vars.HOMEOSTAT_APP_ID }}\n"
        "      - uses: homeostat/homeostat/actions/daily@v0.2.0\n"
        f"        with:\n          token: {token_expression}\n"
    )
    token = auto_merge.daily_token({auto_merge.DAILY_WORKFLOW: text}, "github")
    assert (token.kind, token.or_actions) == (kind, or_actions)
    if kind == "app":
        assert token.app_variable == "HOMEOSTAT_APP_ID"


def test_classic_protection_allowance_skips_approvals_not_checks() -> None:
    rules = MergeRules(
        "main",
        (RuleSet("branch protection", 1, ("validate",), bypass_apps=(7,), bypass_covers_checks=False),),
    )
    look = auto_merge.outlook(rules, auto_merge.RunToken("app", "the app token", 7))
    assert (look.blocked, look.waits_for) == ((), ("validate",))
    look = auto_merge.outlook(rules, auto_merge.RunToken("app", "the app token", 8))
    assert [gate.kind for gate in look.blocked] == ["approvals"]


def test_bitbucket_doctor_fails_enforced_approvals_and_names_the_missing_bypass(
    bb_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(bb_world)
    bb_world.harness.add_merge_checks(bb_world.kb_repo, "main", approvals=1, builds=1)
    found = bb_doctor(bb_world, capsys)["auto-merge"]
    assert found["status"] == "fail"
    assert "merge checks requires 1 approval, and nobody approves their own pull request" in found["message"]
    assert found["fix"].startswith("Bitbucket has no bypass for merge checks")


# --- what the adapters read ------------------------------------------------------------------------


def test_github_merge_rules_as_an_admin_and_as_the_app(world: DailyWorld) -> None:
    harness, repo = world.harness, world.kb_repo
    harness.protect_branch(repo, "main", ("validate",), approvals=2, bypass_apps=(APP_ID,))
    harness.add_ruleset(repo, "main", approvals=1, checks=("validate", "lint"), bypass_apps=(APP_ID,))
    harness.add_ruleset(repo, "elsewhere", approvals=3, include=("refs/heads/release/*",))

    as_admin = harness.adapter().merge_rules(repo, "main")
    assert as_admin.complete
    assert as_admin.rule_sets == (
        RuleSet(
            "branch protection",
            2,
            ("validate",),
            bypass_apps=(APP_ID,),
            bypass_covers_checks=False,
            blocks_force_push=True,
        ),
        RuleSet("ruleset 'main'", 1, ("validate", "lint"), bypass_apps=(APP_ID,), caller_bypasses=False),
    )
    as_app = harness.adapter(harness.app_token(APP_ID)).merge_rules(repo, "main")
    assert not as_app.complete and "may not read branch protection" in as_app.note
    assert as_app.rule_sets == (
        RuleSet("branch protection", None, ("validate",), bypass_visible=False, bypass_covers_checks=False),
        RuleSet("ruleset 'main'", 1, ("validate", "lint"), bypass_visible=False, caller_bypasses=True),
    )


def test_bitbucket_merge_rules_say_whether_they_are_enforced(bb_world: DailyWorld) -> None:
    harness, repo = bb_world.harness, bb_world.kb_repo
    harness.add_merge_checks(repo, "main", approvals=2, builds=1, enforced=False)
    [rule_set] = harness.adapter().merge_rules(repo, "main").rule_sets
    assert (rule_set.approvals, rule_set.builds, rule_set.enforced) == (2, 1, False)


def test_bitbucket_branch_protection_says_merge_checks_that_only_warn(
    bb_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    init_workflows(bb_world)
    bb_world.harness.add_merge_checks(bb_world.kb_repo, "main", approvals=1, builds=1, enforced=False)
    found = bb_doctor(bb_world, capsys)["branch-protection"]
    assert found["status"] == "warn"
    assert "its merge checks only warn" in found["message"]
