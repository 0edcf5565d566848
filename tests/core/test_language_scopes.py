"""`scope: ["lang:python"]`: a language's files in any folder, through context, export, validate and learn.

The example KB's core logging rule is rescoped to `lang:python` and `lang:ts`, and the team adds
`.pyx` to Python (`languages:` in homeostat.yaml), so each command is driven as a user would.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from kbfactory import example_files, write_files
from kit import REPO

from homeostat.cli import main
from homeostat.core.config import Config
from homeostat.core.export.formats import parse_claude, parse_copilot, parse_cursor
from homeostat.core.languages import BUILT_IN, expand_scope, language_table, unknown_languages

RULE = "knowledge/core/log-with-fields.md"
OLD_SCOPE = 'scope: ["**/*.py", "**/*.ts"]'
EXTRA = "\nlanguages:\n  python: [pyx]\n  vue: [.vue]\n"


def lang_kb(root: Path, scope: str = 'scope: ["lang:python", "lang:TS"]', extra: str = EXTRA) -> Path:
    files = dict(example_files())
    assert OLD_SCOPE in files[RULE]
    files[RULE] = files[RULE].replace(OLD_SCOPE, scope)
    files["homeostat.yaml"] += extra
    return write_files(root, dict(files))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def served(capsys: pytest.CaptureFixture[str], kb: Path, path: str) -> list[str]:
    code, out, _ = run(
        capsys, "context", "--kb", str(kb), "--repo", "billing", "--files", path, "--format", "json"
    )
    assert code == 0
    return [rule["id"] for rule in json.loads(out)["rules"]]


# --- the table ------------------------------------------------------------------------------------


def test_a_selector_stands_for_one_glob_per_extension_and_a_team_adds_to_the_table() -> None:
    table = language_table({"python": ["pyx", ".py"], "vue": [".vue"]})
    assert table["python"] == ("py", "pyi", "pyx") and table["vue"] == ("vue",)
    assert BUILT_IN["python"] == ("py", "pyi")  # the built-in table is never changed
    assert expand_scope(("src/**", "lang:Python", "**/*.py"), table) == (
        "src/**",
        "**/*.py",
        "**/*.pyi",
        "**/*.pyx",
    )
    scope = ("src/**",)
    assert expand_scope(scope, table) is scope
    assert expand_scope(("lang:cobol",), table) == ()
    assert unknown_languages(("lang:cobol", "lang:go", " lang: "), table) == ["lang:cobol", "lang:"]


@pytest.mark.parametrize(
    ("languages", "message"),
    [
        ({"Vue": ["vue"]}, "language 'Vue': a name is lower-case letters"),
        ({"vue": []}, "language 'vue' needs at least one file extension"),
        ({"vue": ["*.vue"]}, "language 'vue': '*.vue' is not a file extension"),
    ],
)
def test_a_bad_languages_entry_is_refused(languages: dict[str, list[str]], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("*", r"\*")):
        Config.model_validate({"languages": languages})


# --- context --------------------------------------------------------------------------------------


def test_context_serves_a_language_rule_to_that_languages_files_in_any_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb")
    assert "log-with-fields" in served(capsys, kb, "src/billing/api/refunds.py")
    assert "log-with-fields" in served(capsys, kb, "tools/deep/nested/stubs.pyi")
    assert "log-with-fields" in served(capsys, kb, "web/app.tsx")  # `lang:TS`: names are read in any case
    assert "log-with-fields" in served(capsys, kb, "src/billing/api/fast.pyx")  # the team's extension
    assert "log-with-fields" not in served(capsys, kb, "src/billing/api/main.go")


def test_without_the_teams_extension_its_files_are_not_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb", extra="")
    assert "log-with-fields" not in served(capsys, kb, "src/billing/api/fast.pyx")
    assert "log-with-fields" in served(capsys, kb, "src/billing/api/refunds.py")


# --- export ---------------------------------------------------------------------------------------


def test_export_writes_each_tools_own_globs_for_a_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb")
    code_repo = tmp_path / "billing"
    code_repo.mkdir()
    subprocess.run(["git", "init", "--quiet"], cwd=code_repo, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "https://github.com/example/billing"], cwd=code_repo, check=True
    )
    code, _, err = run(capsys, "export", str(code_repo), "--kb", str(kb))
    assert code == 0, err
    wanted = ("**/*.py", "**/*.pyi", "**/*.pyx", "**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts")
    claude = (code_repo / ".claude/rules/homeostat/log-with-fields.md").read_text(encoding="utf-8")
    assert parse_claude(claude) == wanted
    cursor = (code_repo / ".cursor/rules/homeostat/log-with-fields.mdc").read_text(encoding="utf-8")
    assert parse_cursor(cursor) == wanted
    copilot = (code_repo / ".github/instructions/homeostat-log-with-fields.instructions.md").read_text(
        encoding="utf-8"
    )
    assert parse_copilot(copilot) == wanted
    agents = (code_repo / "AGENTS.md").read_text(encoding="utf-8")
    assert "Applies to: `**/*.py`, `**/*.pyi`, `**/*.pyx`, `**/*.ts`" in agents
    assert "lang:" not in claude + cursor + copilot + agents


def test_export_leaves_out_a_rule_whose_languages_are_all_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code reads a rule file with no `paths` as one for every file: an empty scope must not be
    written as one."""
    kb = lang_kb(tmp_path / "kb", scope='scope: ["lang:cobol"]')
    code_repo = tmp_path / "billing"
    code_repo.mkdir()
    subprocess.run(["git", "init", "--quiet"], cwd=code_repo, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "https://github.com/example/billing"], cwd=code_repo, check=True
    )
    code, _, err = run(capsys, "export", str(code_repo), "--kb", str(kb))
    assert code == 0
    assert "not exported, their scope names no known language (homeostat validate): log-with-fields" in err
    assert not (code_repo / ".claude/rules/homeostat/log-with-fields.md").exists()
    assert "(log-with-fields)" not in (code_repo / "AGENTS.md").read_text(encoding="utf-8")


# --- validate -------------------------------------------------------------------------------------


def test_validate_accepts_known_languages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = lang_kb(tmp_path / "kb", scope='scope: ["lang:python", "lang:vue"]')
    code, out, _ = run(capsys, "validate", "--kb", str(kb), "--format", "json")
    assert code == 0, out
    assert not [f for f in json.loads(out)["findings"] if f["severity"] == "error"]


def test_validate_names_the_file_of_an_unknown_language_in_one_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb", scope='scope: ["lang:cobol", "lang:python", "lang:fortran"]')
    code, out, _ = run(capsys, "validate", "--kb", str(kb), "--format", "json")
    assert code == 1
    found = [f for f in json.loads(out)["findings"] if "names no language" in f["message"]]
    assert found == [
        {
            "check": "config",
            "severity": "error",
            "file": RULE,
            "line": 1,
            "message": "scope 'lang:cobol', 'lang:fortran' names no language (rule log-with-fields); use one of "
            + ", ".join(sorted([*BUILT_IN, "vue"]))
            + ", or add it under languages in homeostat.yaml",
        }
    ]


def test_validate_refuses_a_bad_languages_key_in_one_line_naming_homeostat_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb", extra="\nlanguages:\n  vue: ['*.vue']\n")
    code, out, _ = run(capsys, "validate", "--kb", str(kb))
    assert code == 1
    [line] = [line for line in out.splitlines() if "is not a file extension" in line]
    assert line.startswith("homeostat.yaml:")


# --- learn ----------------------------------------------------------------------------------------


def test_learn_refuses_an_unknown_language_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = lang_kb(tmp_path / "kb")
    argv = ["learn", "--kb", str(kb), "--author", "bo", "--title", "Log in fields", "--rule", "Use fields."]
    argv += ["--why", "Indexed.", "--area", "core", "--scope", "lang:cobol"]
    code, _, err = run(capsys, *argv)
    assert code != 0
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith("homeostat: --scope 'lang:cobol' names no language: use one of c,")
    )
    assert not (kb / ".homeostat" / "pending").exists() or not list((kb / ".homeostat" / "pending").iterdir())


def test_the_format_doc_lists_every_built_in_language() -> None:
    doc = (REPO / "docs" / "kb-format.md").read_text(encoding="utf-8")
    section = doc.split("### Scoping by language", 1)[1].split("\n## ", 1)[0]
    listed = section.split("The built-in names:", 1)[1].split("A team adds", 1)[0]
    assert {name for name in BUILT_IN if f"`{name}`" not in listed} == set()


def test_a_language_scope_overlaps_any_folder_when_the_daily_run_looks_for_duplicates() -> None:
    """Consolidation only compares a lesson with rules whose scopes can meet: `lang:python` reaches
    every folder, as `**/*.py` does."""
    from homeostat.core.daily.consolidate import scopes_overlap

    assert scopes_overlap(("lang:python",), ("src/billing/api/**",))
    assert scopes_overlap(("src/billing/api/**",), ("lang:go",))
    assert not scopes_overlap(("web/**",), ("src/billing/api/**",))
