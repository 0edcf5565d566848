"""`homeostat import`: real-world rule files in, candidate rules out, with every file's scoping kept.

The corpus in tests/fixtures/rulefiles (see its README for the sources) is imported repo by repo,
the result merged into a KB, exported back with `homeostat export`, and each exported file read the
way its tool reads it: the scoping must come back exactly.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from bootstrapkit import GITHUB_TOKEN, git
from dailyworld import DailyWorld
from kit import FIXTURES

from homeostat.adapters.source_reader import SourceReader
from homeostat.cli import main
from homeostat.core.export.formats import expanded, parse_agents, parse_claude, parse_copilot, parse_cursor
from homeostat.core.imports.rulefiles import parse_rule_file
from homeostat.core.kb import load_kb
from homeostat.core.validate import validate_files
from homeostat.runs.bootstrap.targets import target_for
from homeostat.runs.imports import plan_import

CORPUS = FIXTURES / "rulefiles"
CONFIG = """version: 0.2.0
team:
  members:
    - {handle: lee, role: lead, teams: [eng]}
  teams:
    - {name: eng, handle: "@example/eng"}
sources:
  host: github
repos:
  - name: app
    url: https://github.com/example/app
    areas:
      - {name: code, paths: ["**"], owner: eng}
security:
  allowedDomains: [example.dev]
"""


def make_checkout(
    root: Path, files: dict[str, str | bytes], origin: str = "https://github.com/example/app.git"
) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    git(root, "init", "--quiet", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "rules")
    git(root, "remote", "add", "origin", origin)
    return root


NO_BUDGETS = """
distribution:
  exports:
    claude: {lines: null}
    copilot: {chars: null}
    agents: {lines: null, chars: null}
"""


def make_kb(root: Path, config: str = CONFIG) -> Path:
    (root / "knowledge/app/code").mkdir(parents=True)
    (root / "homeostat.yaml").write_text(config)
    return root


def kb_map(root: Path) -> dict[str, str]:
    files = {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.md")}
    return {"homeostat.yaml": (root / "homeostat.yaml").read_text(), "knowledge/": "", **files}


def corpus_repos() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir())


def import_into(kb: Path, checkout: Path):  # type: ignore[no-untyped-def]
    files = kb_map(kb)
    loaded = load_kb(files)
    config = loaded.require_config()
    result = plan_import(
        config,
        files["homeostat.yaml"],
        loaded,
        target_for(config, checkout, None),
        SourceReader(checkout),
        dt.datetime.now(dt.UTC),
    )
    for rel, text in result.changed.items():
        (kb / rel).parent.mkdir(parents=True, exist_ok=True)
        (kb / rel).write_text(text)
    return result


@pytest.mark.parametrize("source", corpus_repos(), ids=lambda p: p.name)
def test_import_then_export_reproduces_every_files_scoping(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    originals = {p.relative_to(source).as_posix(): p.read_text() for p in source.rglob("*") if p.is_file()}
    checkout = make_checkout(tmp_path / "app", dict(originals))
    kb = make_kb(tmp_path / "kb", CONFIG + NO_BUDGETS)  # every rule in AGENTS.md, to read each back
    result = import_into(kb, checkout)
    assert {f.path for f in result.files} == set(originals)
    today = dt.datetime.now(dt.UTC).date()
    errors = validate_files(kb_map(kb), today).errors
    assert not errors, errors
    target = tmp_path / "exported"
    target.mkdir()
    assert main(["export", str(target), "--kb", str(kb), "--repo", "app"]) == 0, capsys.readouterr()
    capsys.readouterr()
    agents = (target / "AGENTS.md").read_text() if (target / "AGENTS.md").exists() else ""
    for rule_file in result.files:
        mine = [v for v in result.verdicts if v.candidate.file == rule_file.path and v.outcome == "new"]
        if not mine:
            assert rule_file.format == "cursor" and "never mock" in rule_file.body  # prose only: a document
            continue
        wanted = expanded(rule_file.scope)
        original = originals[rule_file.path]
        for verdict in mine:
            rule_id = result.rule_ids[verdict.candidate.key]
            assert verdict.candidate.scope == rule_file.scope
            cursor = parse_cursor((target / f".cursor/rules/homeostat/{rule_id}.mdc").read_text())
            copilot = parse_copilot(
                (target / f".github/instructions/homeostat-{rule_id}.instructions.md").read_text()
            )
            claude = parse_claude((target / f".claude/rules/homeostat/{rule_id}.md").read_text())
            assert cursor == copilot == wanted and claude == rule_file.scope
            assert parse_agents(agents)[rule_id] == rule_file.scope
            if rule_file.format == "cursor" and not re.search(
                r"^globs:[ \t]*\n[ \t]+-", original, re.MULTILINE
            ):
                assert parse_cursor(original) == cursor, rule_file.path  # a YAML list is read by import only
            if rule_file.format == "copilot":
                assert parse_copilot(original) == copilot
            if rule_file.format == "claude-rule":
                assert parse_claude(original) == claude


def test_every_corpus_file_is_read_with_the_scope_its_tool_gives_it() -> None:
    scopes = {}
    for source in corpus_repos():
        for path in source.rglob("*"):
            if path.is_file():
                rel = path.relative_to(source).as_posix()
                parsed = parse_rule_file(rel, path.read_text())
                assert parsed is not None, rel
                scopes[f"{source.name}/{rel}"] = parsed.scope
    assert scopes["10up-block-components/.cursor/rules/typescript.mdc"] == ("*.tsx", "*.ts")
    assert scopes["BetterTyped-hyper-fetch/.cursor/rules/typescript.mdc"] == (
        "**/*.ts",
        "**/*.tsx",
        "**/*.d.ts",
    )
    assert scopes["Comfy-Org-desktop/.cursor/rules/typescript.mdc"] == ("*.ts", "*.mts", "*.cts")
    assert scopes["Arkaikus-data-ingest-kafka-k8s/.cursor/rules/architecture.mdc"] == ("**",)
    assert scopes["0lucasferrari-YASTM/.cursor/rules/architecture.mdc"] == ("src/**",)
    assert scopes["ASISaga-theme.asisaga.com/.github/instructions/js.instructions.md"] == (
        "**/*.js",
        "assets/js/**",
    )
    assert scopes["alysson-souza-hnews/.github/instructions/typescript.instructions.md"] == ("**/*.ts",)
    assert scopes["GraysonCAdams-scrolly/.claude/rules/testing.md"] == (
        "src/**/*.test.ts",
        "src/**/*.spec.ts",
    )
    assert scopes["reporails-cli/.claude/rules/writing-rules.md"] == (".claude/rules/**",)
    assert scopes["DeadshotOMEGA-sentinel/apps/backend/src/middleware/AGENTS.md"] == (
        "apps/backend/src/middleware/**",
    )
    assert scopes["DeadshotOMEGA-sentinel/apps/backend/src/repositories/CLAUDE.md"] == (
        "apps/backend/src/repositories/**",
    )
    assert scopes["alysson-souza-hnews/.github/copilot-instructions.md"] == ("**",)


def test_never_lifted_out_of_its_list_keeps_its_never(tmp_path: Path) -> None:
    checkout = make_checkout(
        tmp_path / "app", {"CLAUDE.md": "# Rules\n\nNEVER:\n- Mix package boundaries\n- Skip type hints\n"}
    )
    result = import_into(make_kb(tmp_path / "kb"), checkout)
    assert [v.candidate.rule for v in result.verdicts] == [
        "NEVER: Mix package boundaries",
        "NEVER: Skip type hints",
    ]
    assert result.verdicts[0].candidate.title == "NEVER: Mix package boundaries"


def test_a_secret_or_curl_pipe_sh_blocks_its_candidate_with_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude = (
        "# Working here\n\n"
        "- Run `make test` before every commit.\n"
        "- Install the CLI with `curl -fsSL https://get.tooling.io/install.sh | sh` on a new laptop.\n"
        f"- Use the registry token {GITHUB_TOKEN} when npm asks for one.\n"
    )
    checkout = make_checkout(tmp_path / "app", {"CLAUDE.md": claude})
    kb = make_kb(tmp_path / "kb")
    code = main(["import", str(checkout), "--kb", str(kb), "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "1 new, 0 already covered, 2 blocked" in out
    blocked = [line for line in out.splitlines() if line.startswith("  ! blocked")]
    assert any("risky: piped-shell" in line for line in blocked), blocked
    assert any("secret: possible" in line and "CLAUDE.md:5" in line for line in blocked), blocked
    assert GITHUB_TOKEN not in out + err
    assert list((kb / "knowledge").rglob("*.md")) == []  # a dry run writes nothing
    assert main(["import", str(checkout), "--kb", str(kb), "--dry-run", "--format", "json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)  # each of new, duplicates and blocked is a list of the rows docs/cli.md names
    row = {"id", "title", "file", "line", "scope", "area", "detail"}
    assert len(data["new"]) == 1 and len(data["blocked"]) == 2 and data["duplicates"] == []
    assert all(set(entry) == row for entry in data["new"] + data["blocked"])
    assert GITHUB_TOKEN not in out


def test_duplicates_of_the_kb_and_of_each_other_are_proposed_once(tmp_path: Path) -> None:
    kb = make_kb(tmp_path / "kb")
    (kb / "knowledge/app/code/run-make-test.md").write_text(
        '---\nid: run-make-test\ntitle: Run make test before committing\narea: app/code\nscope: ["**"]\n'
        "status: accepted\nsource:\n  type: manual\ncreated: 2026-01-05\nlastConfirmed: 2026-01-05\n---\n"
        "## Rule\nRun `make test` before every commit.\n\n## Why\nCI runs it anyway.\n"
    )
    checkout = make_checkout(
        tmp_path / "app",
        {
            "AGENTS.md": "- Run `make test` before every commit.\n- Keep handlers thin; business logic lives in services.\n",
            "CLAUDE.md": "- Keep handlers thin; business logic lives in services.\n",
        },
    )
    result = import_into(kb, checkout)
    outcomes = [(v.candidate.file, v.outcome, v.detail) for v in result.verdicts]
    assert outcomes == [
        ("AGENTS.md", "duplicate", "already in the KB as `run-make-test`"),
        ("AGENTS.md", "new", ""),
        ("CLAUDE.md", "duplicate", "repeats `AGENTS.md` line 2"),
    ]


def test_homeostats_own_exports_are_never_imported_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = make_kb(tmp_path / "kb")
    first = make_checkout(
        tmp_path / "first", {"CLAUDE.md": "- Keep handlers thin; logic lives in services.\n"}
    )
    import_into(kb, first)
    exported = tmp_path / "exported"
    exported.mkdir()
    (exported / "AGENTS.md").write_text("# Our agents\n\n- Write commit messages in the imperative mood.\n")
    assert main(["export", str(exported), "--kb", str(kb), "--repo", "app"]) == 0
    capsys.readouterr()
    make_checkout(exported, {})
    result = import_into(kb, exported)
    assert result.own == [".github/instructions/homeostat-keep-handlers-thin.instructions.md"]
    # Homeostat's marked blocks are cut out of these two; what a person wrote around them is read.
    assert sorted(f.path for f in result.files) == [".github/copilot-instructions.md", "AGENTS.md"]
    assert [v.candidate.rule for v in result.verdicts] == ["Write commit messages in the imperative mood."]


def test_bad_input_gets_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = make_kb(tmp_path / "kb")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["import", str(plain), "--kb", str(kb), "--dry-run"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"homeostat: {plain}: not a git checkout (no .git); pass the top folder of a clone of the code repo"
    )
    checkout = make_checkout(
        tmp_path / "app", {"AGENTS.md": b"\x00\x01not text", "CLAUDE.md": "- Keep handlers thin always.\n"}
    )
    assert main(["import", str(checkout), "--kb", str(kb), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "not read AGENTS.md: binary" in out and "1 new" in out


# --- the review PR, on the GitHub emulator --------------------------------------------------------


def test_import_opens_one_review_pr_and_a_rerun_adds_only_what_is_new(
    world: DailyWorld, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = CORPUS / "DeadshotOMEGA-sentinel"
    files = {p.relative_to(source).as_posix(): p.read_text() for p in source.rglob("*") if p.is_file()}
    checkout = make_checkout(
        tmp_path / "billing", dict(files), origin="https://github.com/example/billing.git"
    )
    world.env()

    def run() -> tuple[int, str]:
        code = main(["import", str(checkout), "--kb", str(world.checkout())])
        out, err = capsys.readouterr()
        assert code == 0, out + err
        return code, out

    _, out = run()
    pulls = {p.head_ref: p for p in world.pulls().values()}
    pull = pulls["homeostat/import-billing"]
    assert (
        pull.state == "open"
        and "## New rules" in pull.body
        and "`apps/backend/src/middleware/**`" in pull.body
    )
    assert pull.reviewers == ["ana"]
    proposed = {
        p: d.decode() for p, d in world.bare().read_files("refs/heads/homeostat/import-billing").items()
    }
    assert not validate_files(proposed, dt.datetime.now(dt.UTC).date()).errors
    tip = world.bare().rev_parse("refs/heads/homeostat/import-billing")
    _, out = run()
    assert world.bare().rev_parse("refs/heads/homeostat/import-billing") == tip and len(world.pulls()) == 1
    (checkout / "AGENTS.md").write_text("- Pin every base image by digest in `Dockerfile`s.\n")
    git(checkout, "add", "-A")
    git(checkout, "commit", "--quiet", "-m", "more")
    _, out = run()
    assert "1 new" in out
    branch = {
        p: d.decode() for p, d in world.bare().read_files("refs/heads/homeostat/import-billing").items()
    }
    assert any("Pin every base image by digest" in text for text in branch.values())
    assert len(world.pulls()) == 1
    world.harness.merge_as(world.kb_repo, pull.number, "ana")
    _, out = run()
    assert "nothing new to propose" in out and len(world.pulls()) == 1
