"""CODEOWNERS kept honest: the PR check (`validate`, and so the validate workflow `init` writes) fails
while the generated CODEOWNERS is stale against homeostat.yaml, on the PR that makes it stale."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from actionkit import run_action
from gitfixtures import git
from kit import REPO

from homeostat.cli import main
from homeostat.core.validate import CHECKS

VALIDATE_ACTION = REPO / "actions" / "validate"
TEAM = ["--member", "ana:lead", "--member", "bo:senior", "--member", "cy"]


def init_kb(tmp_path: Path, host: str = "github") -> Path:
    """A KB repository as `init` leaves it (committed, as a team pushes it)."""
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    assert (
        main(
            [
                "init",
                str(kb),
                "--host",
                host,
                *TEAM,
                "--repo",
                f"ledger=https://{host}.{'com' if host == 'github' else 'org'}/acme/ledger",
                "--yes",
            ]
        )
        == 0
    )
    git(kb, "add", "-A")
    git(kb, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "--quiet", "-m", "init")
    return kb


def promote_cy(kb: Path) -> None:
    """A change to homeostat.yaml that moves CODEOWNERS: cy becomes a senior, who owns the config."""
    config = kb / "homeostat.yaml"
    text = config.read_text(encoding="utf-8")
    assert "    - handle: cy\n      role: member\n" in text
    config.write_text(
        text.replace("handle: cy\n      role: member", "handle: cy\n      role: senior"), encoding="utf-8"
    )


def validate_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, object]]]:
    code = main(["validate", "--kb", str(kb), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_validate_fails_on_a_stale_codeowners_and_passes_once_it_is_regenerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = init_kb(tmp_path)
    capsys.readouterr()
    assert validate_json(kb, capsys)[0] == 0
    promote_cy(kb)
    code, findings = validate_json(kb, capsys)
    assert code == 1
    assert [f for f in findings if f["check"] == "codeowners"] == [
        {
            "check": "codeowners",
            "severity": "error",
            "file": ".github/CODEOWNERS",
            "line": 4,
            "message": ".github/CODEOWNERS is stale against homeostat.yaml (from line 4): "
            "run homeostat codeowners and commit it",
        }
    ]
    assert "codeowners" in CHECKS
    assert main(["codeowners", "--kb", str(kb)]) == 0
    capsys.readouterr()
    code, findings = validate_json(kb, capsys)
    assert code == 0 and not [f for f in findings if f["check"] == "codeowners"]


def test_validate_of_a_ref_sees_the_stale_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = init_kb(tmp_path)
    promote_cy(kb)
    git(kb, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "--quiet", "-am", "cy is a senior")
    git(kb, "checkout", "--quiet", "HEAD~1")  # the working tree is current; the ref is not
    capsys.readouterr()
    assert main(["validate", "--kb", str(kb), "--ref", "main"]) == 1
    assert ".github/CODEOWNERS:4: error [codeowners]" in capsys.readouterr().out


def test_bitbuckets_codeowners_is_checked_where_bitbucket_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = init_kb(tmp_path, host="bitbucket")
    promote_cy(kb)
    capsys.readouterr()
    code, findings = validate_json(kb, capsys)
    assert code == 1 and [f["file"] for f in findings if f["check"] == "codeowners"] == [
        ".bitbucket/CODEOWNERS"
    ]


def test_a_hand_written_codeowners_is_the_teams_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = init_kb(tmp_path)
    (kb / ".github" / "CODEOWNERS").write_text("* @ana\n", encoding="utf-8")
    promote_cy(kb)
    capsys.readouterr()
    code, findings = validate_json(kb, capsys)
    assert code == 0 and not [f for f in findings if f["check"] == "codeowners"]


def test_the_validate_workflow_init_writes_fails_the_pr_that_leaves_codeowners_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The job `.github/workflows/homeostat-validate.yml` runs (its validate action, with this
    checkout's homeostat in place of the image): an annotation on CODEOWNERS and a failed check."""
    kb = init_kb(tmp_path)
    workflow = (kb / ".github/workflows/homeostat-validate.yml").read_text(encoding="utf-8")
    assert "actions/validate@" in workflow and "pull_request:" in workflow
    promote_cy(kb)
    homeostat = str(Path(sys.executable).parent / "homeostat")
    run = run_action(
        VALIDATE_ACTION,
        kb,
        tmp_path / "runner",
        env={"HOMEOSTAT_BIN": homeostat},
    )
    assert run.returncode == 1, run.stderr
    annotations = re.findall(r"^::error file=([^,]+),line=(\d+)[^:]*::(.*)$", run.stderr, re.MULTILINE)
    assert (".github/CODEOWNERS", "4") in [(file, line) for file, line, _ in annotations], run.stderr
    assert "| `.github/CODEOWNERS` | 4 |" in run.summary
