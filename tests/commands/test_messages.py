"""What a newcomer meets: each message says what happened and what to do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitfixtures import git

from homeostat.cli import main

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"


def code_repo(tmp_path: Path, name: str, origin: str) -> Path:
    work = tmp_path / name
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", origin)
    return work


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_checkout_that_matches_no_repo_says_so_and_names_the_repos(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = code_repo(tmp_path, "elsewhere", "https://github.com/example/elsewhere")
    for argv in (["search", "money"], ["docs"], ["read", "billing/api/overview"]):
        _, _, err = run(capsys, *argv, "--kb", str(kb), "--checkout", str(elsewhere))
        assert err == (
            "homeostat: the checkout (origin https://github.com/example/elsewhere) matches no repo in "
            "homeostat.yaml (repos: billing, storefront), so only core is shown; pass --repo NAME\n"
        ), argv
    _, _, err = run(
        capsys, "search", "money", "--kb", str(kb), "--checkout", str(elsewhere), "--repo", "billing"
    )
    assert err == ""


def test_an_image_beside_a_document_is_no_kb_file(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (kb / "knowledge/billing/api/docs/flow.png").write_bytes(PNG)
    (kb / "knowledge/core/broken.md").write_bytes(b"---\n\xff\n")
    code, out, _ = run(capsys, "validate", "--kb", str(kb), "--today", "2026-11-29")
    assert "flow.png" not in out
    assert "knowledge/core/broken.md:2: error [schema] not UTF-8 (byte 4); save the file as UTF-8" in out


def test_export_check_says_a_hand_written_file_needs_a_person(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "billing", "https://github.com/example/billing")
    assert main(["export", str(repo), "--kb", str(kb)]) == 0
    mine = repo / ".claude/rules/homeostat/log-with-fields.md"
    mine.write_text("my own notes\n")
    capsys.readouterr()
    code, out, err = run(capsys, "export", str(repo), "--kb", str(kb), "--check")
    assert code == 1
    assert out.endswith(
        "export: 1 hand-written file in the way of exported ones (above): move or delete them, then run "
        "homeostat export\n"
    )
    assert "run homeostat export to update" not in out
    assert (
        ".claude/rules/homeostat/log-with-fields.md: a hand-written file is where an exported one goes" in err
    )


def test_counts_are_english(tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = code_repo(tmp_path, "storefront", "https://github.com/example/storefront")
    code, out, _ = run(capsys, "export", str(repo), "--kb", str(kb), "--formats", "agents")
    assert code == 0 and out.startswith("export: 2 rules, 1 file written, 0 removed (agents)")


@pytest.mark.parametrize("limit", ["0", "-3", "x"])
def test_search_refuses_a_limit_below_one(kb: Path, capsys: pytest.CaptureFixture[str], limit: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["search", "money", "--kb", str(kb), "--limit", limit])
    assert exited.value.code == 2
    assert "argument --limit:" in capsys.readouterr().err


def test_no_command_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "homeostat"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert "usage: homeostat" in done.stderr and "validate" in done.stderr


@pytest.mark.parametrize(
    ("raised", "code", "said"),
    [
        (
            RuntimeError("boom"),
            3,
            "homeostat: internal error: RuntimeError: boom (set HOMEOSTAT_DEBUG=1 for the traceback)\n",
        ),
        (KeyboardInterrupt(), 130, "homeostat: interrupted\n"),
    ],
)
def test_a_bug_or_an_interrupt_is_one_line_and_its_own_exit_code(
    kb: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
    said: str,
) -> None:
    import homeostat.commands.kb.report as report

    def fail(*_: object, **__: object) -> None:
        raise raised

    monkeypatch.delenv("HOMEOSTAT_DEBUG", raising=False)
    monkeypatch.setattr(report, "health_report", fail)
    assert main(["report", "--kb", str(kb)]) == code
    out, err = capsys.readouterr()
    assert out == "" and err == said
    if code == 3:  # HOMEOSTAT_DEBUG=1 lets the traceback through
        monkeypatch.setenv("HOMEOSTAT_DEBUG", "1")
        with pytest.raises(RuntimeError):
            main(["report", "--kb", str(kb)])


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["validate", "--fxi"], "usage: homeostat validate "),
        (["learn", "--nosuch"], "usage: homeostat learn "),  # a word is `learn --from coderabbit`'s FILE
        (["review", "merge", "--all", "--bad"], "usage: homeostat review merge "),
    ],
)
def test_an_argument_no_one_knows_gets_the_usage_of_the_command_it_was_given_to(
    argv: list[str], usage: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "homeostat", *argv], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(usage), done.stderr
    assert done.stderr.endswith(f": error: unrecognized arguments: {argv[-1]}\n")


# Ctrl-C while the command line is read and the command's module imported (its first ~0.35 s), sent as
# a real SIGINT at that moment through the entry point the `homeostat` script calls
CTRL_C_EARLY = """
import os, signal, sys
from homeostat import cli

built = cli.build_parser
def build_parser(selected=None):
    os.kill(os.getpid(), signal.SIGINT)
    return built(selected)
cli.build_parser = build_parser
sys.argv = ["homeostat", "validate", "--kb", "."]
cli.main_entry()
"""


def test_ctrl_c_as_a_command_starts_exits_130_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_EARLY], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "homeostat: interrupted\n")
