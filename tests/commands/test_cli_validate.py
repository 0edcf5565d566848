"""`homeostat validate` as a user runs it: exit codes, output formats, CI integrations, --fix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitfixtures import commit, make_origin_and_clone
from kbfactory import EXAMPLE, example_files, write_files
from kit import FIXTURES

from homeostat.cli import main


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    target = tmp_path / "kb"
    shutil.copytree(EXAMPLE, target)
    return target


def _plant_error(kb: Path) -> str:
    rel = "knowledge/core/log-with-fields.md"
    path = kb / rel
    path.write_text(path.read_text().replace("approvedBy: [ana]", "approvedBy: [nobody]"))
    return rel


def test_clean_kb_exits_0(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 0
    assert capsys.readouterr().out == "validate: 0 errors, 0 warnings in 6 rules and 1 document\n"


def test_an_error_exits_1_and_names_file_and_line(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel = _plant_error(kb)
    assert main(["validate", "--kb", str(kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert f"{rel}:1: error [config] approvedBy names unknown member 'nobody'" in out
    assert out.endswith("validate: 1 error, 0 warnings in 6 rules and 1 document\n")


def test_json_output(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rel = _plant_error(kb)
    assert main(["validate", str(kb), "--format", "json", "--today", "2026-11-29"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] is False and payload["errors"] == 1
    assert payload["findings"][0] == {
        "check": "config",
        "severity": "error",
        "file": rel,
        "line": 1,
        "message": "approvedBy names unknown member 'nobody' (rule log-with-fields); add them to team.members",
    }


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: p / "missing", "the KB path does not exist"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "no homeostat.yaml found"),
    ],
)
def test_unreadable_kb_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup, message
) -> None:  # type: ignore[no-untyped-def]
    assert main(["validate", str(setup(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_github_actions_gets_annotations_and_a_summary_table(
    kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rel = _plant_error(kb)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["validate", str(kb), "--today", "2026-11-29", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["errors"] >= 1  # annotations stay apart from the report
    assert (
        f"::error file={rel},line=1,title=homeostat config::approvedBy names unknown member 'nobody'"
        in captured.err
    )
    table = summary.read_text()
    assert "| Severity | Check | File | Line | Message |" in table
    assert f"| error | config | `{rel}` | 1 |" in table


def test_fix_rewrites_only_cached_fields(kb: Path) -> None:
    rel = "knowledge/billing/api/money.md"
    path = kb / rel
    original = path.read_text()
    path.write_text(original.replace("score: 4\n", "score: 99\n").replace("tokens: 80\n", ""))
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 0  # stale cache is a warning
    assert main(["validate", str(kb), "--fix", "--today", "2026-11-29"]) == 0
    assert path.read_text() == original
    others = {p: t for p, t in example_files(kb).items() if p != rel}
    assert others == {p: t for p, t in example_files().items() if p != rel}


def test_nothing_is_rewritten_without_fix(kb: Path) -> None:
    path = kb / "knowledge/core/log-with-fields.md"
    path.write_text(path.read_text().replace("score: 3\n", "score: 7\n"))
    before = example_files(kb)
    main(["validate", str(kb), "--today", "2026-11-29"])
    assert example_files(kb) == before


def test_broken_inputs_never_crash(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(
        kb,
        {
            "homeostat.yaml": "team: [\n",
            "knowledge/core/binary.md": b"\xff\xfe\x00junk",
            "knowledge/core/no-frontmatter.md": "just text\n",
        },
    )
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert "homeostat.yaml:2: error [config] invalid YAML" in out  # the file named once
    assert "knowledge/core/binary.md:1: error [schema] not UTF-8" in out
    assert "knowledge/core/no-frontmatter.md:1: error [schema] missing YAML frontmatter" in out


def test_validate_a_git_ref_without_checkout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    origin, clone = make_origin_and_clone(tmp_path, {})
    commit(clone, dict(example_files()), "kb", push=True)
    assert main(["validate", str(origin), "--ref", "main", "--today", "2026-11-29"]) == 0
    assert "in 6 rules and 1 document" in capsys.readouterr().out


def test_python_dash_m_and_help_work() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "homeostat", "validate", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "--fix" in done.stdout and "--format" in done.stdout


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"HOMEOSTAT_COMMAND": "daily --since 2026-11-01"}, ["daily", "--since", "2026-11-01"]),
        ({"BITBUCKET_BUILD_NUMBER": "7"}, ["validate"]),
        ({}, []),
    ],
)
def test_the_image_with_no_arguments_runs_the_configured_command(
    env: dict[str, str], expected: list[str]
) -> None:
    from homeostat.cli import default_command

    assert default_command(env) == expected


def test_a_pipe_with_no_arguments_validates_its_kb(
    kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOMEOSTAT_COMMAND", "validate --today 2026-11-29 --no-insights")
    monkeypatch.setenv("HOMEOSTAT_DIR", str(kb))
    assert main([]) == 0
    assert "validate: 0 errors" in capsys.readouterr().out


def test_inside_bitbucket_pipelines_the_findings_become_a_code_insights_report(
    kb: Path,
    bitbucket_harness,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    repo = bitbucket_harness.create_repo("acme", "kb")
    sha = bitbucket_harness.head(repo)
    rel = _plant_error(kb)
    for name, value in {
        "BITBUCKET_BUILD_NUMBER": "41",
        "BITBUCKET_COMMIT": sha,
        "BITBUCKET_WORKSPACE": "acme",
        "BITBUCKET_REPO_SLUG": "kb",
        "HOMEOSTAT_BITBUCKET_PROXY": bitbucket_harness.proxy_url,
    }.items():
        monkeypatch.setenv(name, value)
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 1
    assert "posted Code Insights report homeostat-validate" in capsys.readouterr().err
    report = bitbucket_harness.reports(repo, sha)["homeostat-validate"]
    assert report["result"] == "FAILED"
    [annotation] = bitbucket_harness.annotations(repo, sha, "homeostat-validate")
    assert (annotation["path"], annotation["line"], annotation["severity"]) == (rel, 1, "HIGH")


def test_a_report_that_cannot_be_posted_never_changes_the_verdict(
    kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BITBUCKET_BUILD_NUMBER", "41")
    monkeypatch.setenv("BITBUCKET_COMMIT", "0" * 40)
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 0
    assert "could not post the Code Insights report" in capsys.readouterr().err


EVAL150 = FIXTURES / "eval150"


@pytest.fixture
def eval_kb(tmp_path: Path) -> Path:
    root = tmp_path / "eval150"
    shutil.copytree(EVAL150, root, ignore=shutil.ignore_patterns(".homeostat"))
    return root


def _floors(root: Path, **floors: float) -> None:
    lines = "".join(f"  {key}: {value}\n" for key, value in floors.items())
    with (root / "homeostat.yaml").open("a", encoding="utf-8") as handle:
        handle.write(f"eval:\n{lines}")


def test_validate_holds_selection_to_the_floors_in_homeostat_yaml(
    eval_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(eval_kb), "--today", "2026-11-29"]) == 0  # cases, but no floor
    capsys.readouterr()
    _floors(eval_kb, minHitAt5=0.95, minHitAt1=0.99)
    assert main(["validate", str(eval_kb), "--today", "2026-11-29", "--format", "json"]) == 1
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["check"] == "eval"]
    assert len(found) == 1 and found[0]["file"] == "eval/selection.yaml"
    message = found[0]["message"]
    assert message.startswith("hit@1 0.967 is below eval.minHitAt1 0.99 in homeostat.yaml; 1 of 30 cases")
    assert (
        "fall short: 'core rule for any python file' (expected no-broad-except, sql-parameters; top "
        in message
    )
    (eval_kb / "homeostat.yaml").write_text(
        (eval_kb / "homeostat.yaml").read_text(encoding="utf-8").replace("minHitAt1: 0.99", "minHitAt1: 0.9"),
        encoding="utf-8",
    )
    assert main(["validate", str(eval_kb), "--today", "2026-11-29"]) == 0


def test_a_broken_case_file_fails_validate_naming_the_key(
    eval_kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (eval_kb / "eval/selection.yaml").write_text(
        "cases:\n  - {files: [a.py], expected: [x]}\n", encoding="utf-8"
    )
    assert main(["validate", str(eval_kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert "eval/selection.yaml:1: error [eval] case 1: expected is an unknown key" in out


def test_validate_a_ref_reads_its_cases_and_floors_from_that_ref(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    origin, clone = make_origin_and_clone(tmp_path, {})
    files = {
        p.relative_to(EVAL150).as_posix(): p.read_text(encoding="utf-8")
        for p in EVAL150.rglob("*")
        if p.is_file() and ".homeostat" not in p.parts
    }
    files["homeostat.yaml"] += "eval:\n  minMrr: 0.999\n"
    commit(clone, files, "kb with a floor it misses", push=True)
    assert main(["validate", str(origin), "--ref", "main", "--today", "2026-11-29"]) == 1
    assert "error [eval] mrr 0." in capsys.readouterr().out


def test_a_bracket_in_a_repo_or_source_url_is_a_finding_not_a_crash(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = kb / "homeostat.yaml"
    config.write_text(config.read_text().replace("https://github.com/example/storefront", "https://[x/y/z"))
    rule = kb / "knowledge/billing/api/errors.md"
    rule.write_text(rule.read_text().replace("url: https://github.com/", "url: https://[github.com/"))
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert (
        "homeostat.yaml:51: error [config] not a repository URL: 'https://[x/y/z' (Invalid IPv6 URL)" in out
    )
    assert (
        "knowledge/billing/api/errors.md:5: error [provenance] source.url "
        "'https://[github.com/example/billing/pull/41#discussion_r9100000001' is not a review-comment or PR URL"
    ) in out


def test_a_timestamp_that_cannot_be_is_a_finding_not_a_crash(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = kb / "knowledge/billing/api/docs/overview.md"
    doc.write_text(doc.read_text().replace("updated: 2026-11-12", "updated: 2026-01-01T25:00:00"))
    rule = kb / "knowledge/core/log-with-fields.md"
    title = "Log with structured fields, not formatted strings"
    rule.write_text(rule.read_text().replace(f"title: {title}", f'title: "{title.replace(" ", chr(9), 1)}"'))
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert "is not a valid timestamp (hour must be in 0..23)" in out
    assert "log-with-fields" not in out


def test_fix_refuses_while_the_config_is_broken_and_cache_warnings_wait_for_it(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text().replace("      role: senior\n", "      role: senior\n      shoe: 9\n")
    )
    before = example_files(kb)
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 1
    out = capsys.readouterr().out
    assert "unknown key 'team.members.1.shoe'" in out
    assert "[cache]" not in out and "--fix" not in out
    assert main(["validate", str(kb), "--fix", "--today", "2026-11-29"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("homeostat: --fix: homeostat.yaml:") and "fix homeostat.yaml first" in err
    assert example_files(kb) == before


def test_ref_reads_a_kb_in_a_subfolder_of_its_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, clone = make_origin_and_clone(tmp_path, {})
    commit(clone, {f"kb/{rel}": text for rel, text in example_files().items()}, "kb")
    assert main(["validate", "--kb", str(clone / "kb"), "--ref", "HEAD", "--today", "2026-11-29"]) == 0
    assert "in 6 rules and 1 document" in capsys.readouterr().out
    assert main(["validate", "--kb", str(clone), "--ref", "HEAD"]) == 2
    assert "HEAD: no homeostat.yaml at the root of that tree" in capsys.readouterr().err
