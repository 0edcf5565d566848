"""`homeostat doctor` against the live setup: the real host clients over HTTP against the GitHub and
Bitbucket emulators, real git, a KB written by `homeostat init`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulators.bitbucket_server import BOT, BitbucketHarness
from emulators.github_server import GitHubHarness
from gitfixtures import git

from homeostat import VERSION
from homeostat.cli import main
from homeostat.core.hosts import RepoRef

MODEL = "  runtime: api\n  model: claude-sonnet-5\n"  # into the agents block init writes
EXCLUDES = '  excludePaths: ["**/generated/**"]\n'


def make_kb(tmp_path: Path, host: str, origin: str) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    git(kb, "remote", "add", "origin", origin)
    assert main(["init", str(kb), "--host", host, "--member", "ana:lead", "--member", "bo", "--yes"]) == 0
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text()
        .replace("  baseBranch: main\n", "  baseBranch: main\n" + EXCLUDES)
        .replace("\nagents:\n", "\nagents:\n" + MODEL)
    )
    return kb


def doctor(kb: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, dict[str, str]]]:
    capsys.readouterr()
    code = main(["doctor", "--kb", str(kb), "--format", "json", *args])
    payload = json.loads(capsys.readouterr().out)
    return code, {check["check"]: check for check in payload["checks"]}


@pytest.fixture
def github(
    github_harness: GitHubHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[GitHubHarness, RepoRef, Path]:
    harness = github_harness
    repo = harness.create_repo("example", "kb")
    monkeypatch.setenv("GITHUB_API_URL", harness.emulator.api_url)
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.add_token("ci-bot", "write", scopes=None))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + "Zq9x" * 10)
    return harness, repo, make_kb(tmp_path, "github", "https://github.com/example/kb")


def test_an_unprotected_base_branch_fails_and_says_how_to_protect_it(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, kb = github
    code, checks = doctor(kb, capsys)
    assert code == 1
    protection = checks["branch-protection"]
    assert protection["status"] == "fail"
    assert protection["message"].startswith("main is not protected: anyone with write access can change")
    assert "require pull requests with at least 1 approval and the `validate` check" in protection["fix"]
    assert [name for name, check in checks.items() if check["status"] == "fail"] == ["branch-protection"]


def test_a_protected_base_branch_passes_and_a_missing_validate_check_is_named(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harness, repo, kb = github
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.add_token("admin-bot", "admin", scopes=None))
    harness.protect_branch(repo, "main", ("validate",), dismiss_stale=True)
    code, checks = doctor(kb, capsys)
    assert code == 0
    assert checks["branch-protection"] == {
        "check": "branch-protection",
        "status": "ok",
        "message": "main is protected: 1 approval(s), checks: validate",
        "fix": "",
    }
    harness.protect_branch(repo, "main", ("ci",), dismiss_stale=True)
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "warn"
    assert "the `validate` check is not required" in checks["branch-protection"]["message"]


def test_approvals_that_survive_a_push_are_a_warning_on_github(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GitHub keeps an approval through later pushes unless the rule dismisses stale ones (its
    default): a review PR approved by a second person could then be changed and merged with the
    host's button."""
    harness, repo, kb = github
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.add_token("admin-bot", "admin", scopes=None))
    harness.protect_branch(repo, "main", ("validate",))
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "warn"
    assert checks["branch-protection"]["message"] == (
        'main is protected, but an approval survives later pushes ("Dismiss stale pull request approvals'
        ' when new commits are pushed" is off)'
    )
    assert "take approvals away on a new push" in checks["branch-protection"]["fix"]


def test_a_base_branch_protected_by_a_ruleset_as_setup_md_says_passes(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """setup.md protects the base branch with a ruleset, which GitHub's branch-protection API does not
    show: doctor reads the rulesets too, and names what one leaves out."""
    harness, repo, kb = github
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.add_token("admin-bot", "admin", scopes=None))
    rules = {"approvals": 1, "checks": ("validate",)}
    harness.add_ruleset(repo, "loose", **rules)  # type: ignore[arg-type]
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["message"] == (
        "main is protected, but force pushes are allowed; an approval survives later pushes"
        ' ("Dismiss stale pull request approvals when new commits are pushed" is off)'
    )
    harness.add_ruleset(repo, "main", **rules, block_force_push=True, dismiss_stale=True)  # type: ignore[arg-type]
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"] == {
        "check": "branch-protection",
        "status": "ok",
        "message": "main is protected: 1 approval(s), checks: validate",
        "fix": "",
    }


def test_a_token_that_cannot_read_the_protection_rule_is_a_warning(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, repo, kb = github
    harness.protect_branch(repo, "main", ("validate",))
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "warn"
    assert "the token cannot read the rule (it needs admin)" in checks["branch-protection"]["message"]


@pytest.mark.parametrize(
    ("permission", "scopes", "status", "words"),
    [
        ("write", None, "ok", "can write to example/kb, without admin rights"),
        ("admin", None, "warn", "it is an admin of example/kb"),
        ("write", "repo, workflow", "warn", "its classic `repo` scope reaches every repository"),
        ("read", None, "fail", "cannot write to example/kb: the daily run cannot push"),
    ],
)
def test_the_tokens_write_reach(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    permission: str,
    scopes: str | None,
    status: str,
    words: str,
) -> None:
    harness, _, kb = github
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.add_token(f"{permission}-bot", permission, scopes))
    _, checks = doctor(kb, capsys)
    assert checks["token-reach"]["status"] == status and words in checks["token-reach"]["message"]


def test_a_public_kb_warns_and_fails_once_it_holds_team_only_areas(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, repo, kb = github
    _, checks = doctor(kb, capsys)
    assert (checks["kb-visibility"]["status"], checks["kb-visibility"]["message"]) == (
        "ok",
        "example/kb is private",
    )
    harness.set_visibility(repo, "public")
    _, checks = doctor(kb, capsys)
    assert checks["kb-visibility"]["status"] == "warn"
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text()
        .replace(
            "repos: []",
            "areas:\n  - {name: vault, paths: ['v/**'], owner: sec, teamOnly: true}\n",
        )
        .replace("  teams: []\n", "  teams: [{name: sec}]\n")
    )
    _, checks = doctor(kb, capsys)
    assert checks["kb-visibility"]["status"] == "fail"
    assert "it holds team-only areas: vault" in checks["kb-visibility"]["message"]


def test_pins_other_than_the_running_version_warn_and_moving_ones_fail(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, kb = github
    _, checks = doctor(kb, capsys)
    assert checks["pinned-versions"]["message"] == f"5 pins in 5 CI files, all {VERSION}"
    workflows = kb / ".github" / "workflows"
    for path in workflows.glob("*.yml"):
        path.write_text(path.read_text().replace(f"@v{VERSION}", "@v0.1.0"))
    _, checks = doctor(kb, capsys)
    assert checks["pinned-versions"]["status"] == "warn"
    assert checks["pinned-versions"]["message"] == f"CI runs Homeostat 0.1.0 (5 pins), this is {VERSION}"
    daily = workflows / "homeostat-daily.yml"
    daily.write_text(daily.read_text().replace("@v0.1.0", "@v0"))
    _, checks = doctor(kb, capsys)
    assert checks["pinned-versions"]["status"] == "fail"
    assert (
        "homeostat/homeostat/actions/daily@v0 (.github/workflows/homeostat-daily.yml:"
        in (checks["pinned-versions"]["message"])
    )


def test_the_runtime_credential_is_named_and_its_value_never_shown(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, kb = github
    capsys.readouterr()
    main(["doctor", "--kb", str(kb), "--security"])
    out = capsys.readouterr().out
    assert "Zq9x" not in out and "ghp_" not in out
    assert "runtime api, model claude-sonnet-5; ANTHROPIC_API_KEY is set" in out
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    _, checks = doctor(kb, capsys)
    assert checks["runtime"]["status"] == "warn"
    assert "ANTHROPIC_API_KEY is not set here (doctor cannot see CI secrets)" in checks["runtime"]["message"]
    config = kb / "homeostat.yaml"
    config.write_text(config.read_text().replace(MODEL, ""))
    _, checks = doctor(kb, capsys)
    assert checks["runtime"]["message"].startswith(
        "homeostat.yaml chooses no model: the runs would use the default"
    )


def test_state_that_git_would_commit_fails_the_event_log_check(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, kb = github
    (kb / ".gitignore").unlink()
    _, checks = doctor(kb, capsys)
    assert checks["event-log"]["status"] == "fail"
    assert checks["event-log"]["fix"] == "add .homeostat/ to .gitignore (homeostat init does)"


def test_without_a_token_the_live_checks_are_warnings_that_say_why(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, kb = github
    monkeypatch.delenv("HOMEOSTAT_GITHUB_TOKEN")
    code, checks = doctor(kb, capsys)
    assert code == 0
    for name in ("host", "branch-protection", "kb-visibility", "token-reach"):
        assert checks[name]["status"] == "warn", name
        assert "no GitHub token: set HOMEOSTAT_GITHUB_TOKEN" in checks[name]["message"]


def test_security_answers_the_four_questions_from_the_live_setup(
    github: tuple[GitHubHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, repo, kb = github
    harness.set_visibility(repo, "public")
    capsys.readouterr()
    assert main(["doctor", "--kb", str(kb), "--security"]) == 1
    out = capsys.readouterr().out
    for title in (
        "What is read:",
        "What leaves the network:",
        "Who can change the rules:",
        "The blast radius:",
    ):
        assert f"\n{title}\n" in out
    assert "Never read: the KB repo itself (example/kb)" in out
    assert "to the Anthropic API (api.anthropic.com), model claude-sonnet-5 (chosen in homeostat.yaml)" in out
    assert "Whoever can merge into main: main is not protected" in out
    assert "The KB repo is public: anyone can read every rule and document." in out
    assert "The CI token (HOMEOSTAT_GITHUB_TOKEN) can write to example/kb" in out
    _, _ = doctor(kb, capsys)
    capsys.readouterr()
    main(["doctor", "--kb", str(kb), "--json", "--security"])
    payload = json.loads(capsys.readouterr().out)
    assert sorted(payload["security"]) == ["blast", "change", "leaves", "read"]
    assert payload["counts"]["fail"] >= 1 and payload["repo"] == "example/kb"


JUDGE_OFF = "  curator:\n    judgeCalls: 0\n"


@pytest.mark.parametrize(
    ("settings", "status", "says"),
    [
        ("", "ok", "nothing merges with no person: scoring.autoMerge lists no area"),
        ("", "ok", "up to 3 of one member's flags a day (scoring.autoMerge.flags) and 3 rules of the team's"),
        (
            "scoring:\n  autoMerge:\n    teamFlags: 0\n",
            "ok",
            "every flag waits for a person (scoring.autoMerge.teamFlags: 0)",
        ),
        (
            "scoring:\n  autoMerge:\n    flags: 0\n",
            "ok",
            "nothing merges with no person: scoring.autoMerge lists no area and every flag waits for a person"
            " (scoring.autoMerge.flags: 0)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n    flags: 1\n",
            "ok",
            "(scoring.autoMerge.pending: review); a flag still takes its rule out of service until a reviewer"
            " settles it, up to 1 of one member's flags a day (scoring.autoMerge.flags)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n    subjects: [test-and-ci]\n",
            "ok",
            "confident lessons in core merge with no person after the risky check, the subject, topic and"
            " language gates, the judge and, for a review lesson, a change after the comment by someone"
            " else that uses the rule's code (accepted unread: test-and-ci)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n    enactment: signed\n",
            "ok",
            "a change after the comment by someone else that uses the rule's code, in commits with verified"
            " signatures (scoring.autoMerge.enactment: signed)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n",
            "ok",
            "; a lesson taught on a developer's machine goes to a person (scoring.autoMerge.pending: review)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n    pending: judged\n",
            "ok",
            "; a lesson taught on a developer's machine is read by the judge's safety trap alone, a model"
            " reading words (scoring.autoMerge.pending: judged)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n" + JUDGE_OFF,
            "warn",
            "read by no model, only word checks and where a review lesson came from: the judge is off"
            " (agents.curator.judgeCalls: 0)",
        ),
        (
            "scoring:\n  autoMerge:\n    areas: [core]\n    subjects: [credentials, destructive]\n",
            "warn",
            "scoring.autoMerge.subjects accepts credentials unread, what poisoned rules are made of",
        ),
    ],
)
def test_what_reads_a_lesson_before_it_merges_unread(
    github: tuple[GitHubHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    settings: str,
    status: str,
    says: str,
) -> None:
    """A team that lets lessons merge unread is told what reads them first, and warned when a setting
    leaves that to word tables alone (the judge off) or to the judge alone (a subject accepted)."""
    _, _, kb = github
    config = kb / "homeostat.yaml"
    text = config.read_text()
    if settings.endswith(JUDGE_OFF):  # into the agents block init writes
        text = text.replace("\nagents:\n", "\nagents:\n" + JUDGE_OFF)
        settings = settings.removesuffix(JUDGE_OFF)
    config.write_text(text + settings)
    _, checks = doctor(kb, capsys)
    assert checks["unread-merges"]["status"] == status
    assert says in checks["unread-merges"]["message"]
    capsys.readouterr()
    main(["doctor", "--kb", str(kb), "--security"])
    assert (
        f"What reads a lesson before such a merge: {checks['unread-merges']['message']}"
        in capsys.readouterr().out
    )


def test_an_unreadable_config_is_the_one_failure_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "homeostat.yaml").write_text("team: [\n")
    code, checks = doctor(tmp_path, capsys)
    assert code == 1 and list(checks) == ["config", "git"]
    assert checks["config"]["message"].startswith("homeostat.yaml:")


# --- Bitbucket ----------------------------------------------------------------------------------------


@pytest.fixture
def bitbucket(
    bitbucket_harness: BitbucketHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[BitbucketHarness, RepoRef, Path]:
    harness = bitbucket_harness
    repo = harness.create_repo("acme", "kb")
    monkeypatch.setenv("BITBUCKET_API_URL", harness.api_url)
    monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", harness.token)
    return harness, repo, make_kb(tmp_path, "bitbucket", "https://bitbucket.org/acme/kb.git")


def test_bitbucket_without_and_with_branch_restrictions(
    bitbucket: tuple[BitbucketHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, repo, kb = bitbucket
    code, checks = doctor(kb, capsys)
    assert code == 1 and checks["branch-protection"]["status"] == "fail"
    assert checks["ci-files"]["message"] == "all 1 present"
    harness.protect_branch(repo, "main")
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "warn"
    assert checks["branch-protection"]["message"] == "main is protected, but no approval is required"
    state = harness.emulator.repo("acme", "kb")
    harness.emulator.add_restriction(
        state, {"kind": "require_approvals_to_merge", "pattern": "main", "value": 1}
    )
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "warn"
    assert checks["branch-protection"]["message"] == (
        'main is protected, but an approval survives later pushes ("Reset approvals when the source'
        ' branch is modified" is off)'
    )
    harness.emulator.add_restriction(
        state, {"kind": "reset_pullrequest_approvals_on_change", "pattern": "main"}
    )
    _, checks = doctor(kb, capsys)
    assert checks["branch-protection"]["status"] == "ok"
    assert (
        checks["branch-protection"]["message"] == "main is protected: 1 approval(s), checks: 1 passing build"
    )


def test_signed_enactment_on_bitbucket_is_a_warning(
    bitbucket: tuple[BitbucketHarness, RepoRef, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Bitbucket does not say whether a commit is signed, so `enactment: signed` there would send every
    review lesson to a person: doctor says so and how to set it."""
    _, _, kb = bitbucket
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text() + "scoring:\n  autoMerge:\n    areas: [core]\n    enactment: signed\n"
    )
    _, checks = doctor(kb, capsys)
    assert checks["unread-merges"]["status"] == "warn"
    assert "Bitbucket does not say whether a commit is signed" in checks["unread-merges"]["message"]


def test_bitbucket_token_reach_and_visibility(
    bitbucket: tuple[BitbucketHarness, RepoRef, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harness, repo, kb = bitbucket
    _, checks = doctor(kb, capsys)
    assert (
        checks["token-reach"]["status"] == "warn"
        and "is an admin of acme/kb" in checks["token-reach"]["message"]
    )
    assert checks["kb-visibility"]["message"] == "acme/kb is private"
    monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", harness.new_token(BOT, ("account", "pullrequest:write")))
    harness.set_visibility(repo, "public")
    _, checks = doctor(kb, capsys)
    assert checks["token-reach"]["status"] == "ok"
    assert checks["kb-visibility"]["status"] == "warn"
    assert checks["branch-protection"]["status"] == "warn"  # reading restrictions takes repository:admin
