"""Exports: every format keeps its path scoping, hand-written text survives, --check catches staleness."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from gitfixtures import git
from kit import FIXTURES, REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.cli import main
from homeostat.core.export.formats import (
    BEGIN,
    END,
    ExportError,
    apply_block,
    claude_file,
    clean,
    copilot_file,
    cursor_file,
    expand_braces,
    expanded,
    extract_block,
    parse_agents,
    parse_claude,
    parse_copilot,
    parse_cursor,
    plan_export,
)
from homeostat.core.selection.entries import Entry

EXAMPLE = REPO / "examples" / "kb"
EVAL150 = FIXTURES / "eval150"
NO_BUDGETS = """
distribution:
  exports:
    claude: {lines: null}
    copilot: {chars: null}
    agents: {lines: null, chars: null}
"""
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


def code_repo(tmp_path: Path, name: str, origin: str) -> Path:
    work = tmp_path / name
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", origin)
    return work


def export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def rule(rule_id: str, scope: tuple[str, ...]) -> Entry:
    view = f"**Rule {rule_id}** ({rule_id})\nDo the thing.\nWhy: because.\n"
    return Entry(
        rule_id, f"Rule {rule_id}", "api", "", scope, "convention", True, "accepted", 0, (), view, view, 1, 1
    )


SCOPES = [
    ("src/api/**/*.py",),
    ("web/**/*.{ts,tsx}", "docs/*.md"),
    ("**",),
    ("**/*.py", "**/*.ts"),
    ("src/{a,b}/{c,d{1,2}}.py",),
    ("path with space/*.py", 'quote"d/*.py'),
]


@pytest.mark.parametrize("scope", SCOPES)
def test_each_format_round_trips_its_path_scoping(scope: tuple[str, ...]) -> None:
    entry = rule("r", scope)
    everywhere = ("**",) if "**" in scope else None
    assert parse_claude(claude_file(entry)) == (everywhere or scope)
    assert parse_cursor(cursor_file(entry)) == (everywhere or expanded(scope))
    assert parse_copilot(copilot_file(entry)) == (everywhere or expanded(scope))
    plan = plan_export([entry], [], ["agents"])
    assert parse_agents(apply_block(None, plan.blocks["AGENTS.md"], "AGENTS.md")) == {"r": scope}


def test_the_fixture_round_trips_through_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "kb"
    shutil.copytree(EVAL150, root, ignore=CLONE_STATE)
    with (root / "homeostat.yaml").open("a", encoding="utf-8") as config:
        config.write(NO_BUDGETS)  # every rule in every always-on file, to read each one back
    repo = code_repo(tmp_path, "payments", "https://github.com/acme/payments.git")
    code, out, _ = export(capsys, str(repo), "--kb", str(root))
    assert code == 0 and out.startswith("export: ")
    corpus = build(root)
    exported = [
        e
        for e in corpus.entries
        if e.area.split("/")[0] in ("payments", "core") and e.adopted and e.area != "payments/db"
    ]
    agents = parse_agents((repo / "AGENTS.md").read_text(encoding="utf-8"))
    assert set(agents) == {e.id for e in exported}
    for e in exported:
        claude = (repo / f".claude/rules/homeostat/{e.id}.md").read_text(encoding="utf-8")
        cursor = (repo / f".cursor/rules/homeostat/{e.id}.mdc").read_text(encoding="utf-8")
        copilot = (repo / f".github/instructions/homeostat-{e.id}.instructions.md").read_text(
            encoding="utf-8"
        )
        whole = ("**",) if e.scope == ("**",) else None
        assert parse_claude(claude) == (whole or e.scope)
        assert parse_cursor(cursor) == (whole or expanded(e.scope))
        assert parse_copilot(copilot) == (whole or expanded(e.scope))
        assert agents[e.id] == e.scope


def test_team_only_areas_and_rejected_decisions_are_never_exported(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOMEOSTAT_MEMBER", "ana")  # even for a member of the owning team
    billing = code_repo(tmp_path, "billing", "git@github.com:example/billing.git")
    assert export(capsys, str(billing), "--kb", str(kb))[0] == 0
    web = code_repo(tmp_path, "storefront", "https://github.com/example/storefront")
    assert export(capsys, str(web), "--kb", str(kb))[0] == 0
    written = "\n".join(
        p.read_text(encoding="utf-8")
        for p in tmp_path.rglob("*")
        if p.is_file() and ".git/" not in p.as_posix() and "/kb/" not in p.as_posix()
    )
    assert "migrations-expand-then-contract" not in written
    assert "no-router-rewrite" not in written
    assert "use-theme-spacing" in written and "billing-api-error-status-table" in written


def test_hand_written_text_is_never_clobbered(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "billing", "https://github.com/example/billing")
    mine = "# Our agent notes\n\nAlways run `make check`.\n"
    (repo / "AGENTS.md").write_text(mine, encoding="utf-8")
    (repo / ".github").mkdir()
    (repo / ".github/copilot-instructions.md").write_text("Prefer small PRs.\n", encoding="utf-8")
    hand = repo / ".claude/rules/homeostat/log-with-fields.md"
    hand.parent.mkdir(parents=True)
    hand.write_text("my own rule\n", encoding="utf-8")
    code, _, err = export(capsys, str(repo), "--kb", str(kb))
    assert code == 1 and ".claude/rules/homeostat/log-with-fields.md: a hand-written file" in err
    assert hand.read_text(encoding="utf-8") == "my own rule\n"
    agents = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.startswith(mine) and BEGIN in agents and agents.rstrip().endswith(END)
    assert (
        (repo / ".github/copilot-instructions.md")
        .read_text(encoding="utf-8")
        .startswith("Prefer small PRs.\n")
    )
    hand.unlink()
    assert export(capsys, str(repo), "--kb", str(kb))[0] == 0
    edited = agents.replace("# Our agent notes", "# Our agent notes, edited")
    (repo / "AGENTS.md").write_text(edited + "\nTrailing notes.\n", encoding="utf-8")
    assert export(capsys, str(repo), "--kb", str(kb), "--check")[0] == 0  # the block itself is unchanged
    assert export(capsys, str(repo), "--kb", str(kb))[0] == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == edited + "\nTrailing notes.\n"


def test_check_fails_when_stale_and_removed_rules_are_cleaned_up(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "billing", "https://github.com/example/billing")
    code, out, _ = export(capsys, str(repo), "--kb", str(kb), "--check")
    assert code == 1 and "stale: AGENTS.md" in out and "export: stale; run homeostat export to update" in out
    assert not (repo / "AGENTS.md").exists()
    assert export(capsys, str(repo), "--kb", str(kb))[0] == 0
    code, out, _ = export(capsys, str(repo), "--kb", str(kb), "--check")
    assert code == 0 and out.strip() == "export: up to date"
    (kb / "knowledge/core/log-with-fields.md").unlink()
    code, out, _ = export(capsys, str(repo), "--kb", str(kb), "--check")
    assert code == 1 and "stale (to delete): .claude/rules/homeostat/log-with-fields.md" in out
    assert export(capsys, str(repo), "--kb", str(kb))[0] == 0
    assert not (repo / ".cursor/rules/homeostat/log-with-fields.mdc").exists()
    assert not (repo / ".github/instructions/homeostat-log-with-fields.instructions.md").exists()


def test_a_public_repo_needs_allow_public(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "billing", "https://github.com/example/billing")
    code, _, err = export(capsys, str(repo), "--kb", str(kb), "--visibility", "public")
    assert (
        code == 2
        and "the repo is public, and exported rules would be readable by anyone; pass --allow-public" in err
    )
    assert not (repo / "AGENTS.md").exists()
    assert export(capsys, str(repo), "--kb", str(kb), "--visibility", "public", "--allow-public")[0] == 0


def test_an_unknown_checkout_needs_repo(tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = code_repo(tmp_path, "elsewhere", "https://github.com/example/elsewhere")
    code, _, err = export(capsys, str(repo), "--kb", str(kb))
    assert code == 2 and "match no repo in homeostat.yaml; pass --repo NAME" in err
    assert export(capsys, str(repo), "--kb", str(kb), "--repo", "storefront", "--formats", "claude")[0] == 0
    assert (repo / ".claude/rules/homeostat/use-theme-spacing.md").is_file()
    assert not (repo / "AGENTS.md").exists()


def test_broken_markers_are_refused_not_guessed() -> None:
    with pytest.raises(ExportError, match="AGENTS.md: has a BEGIN homeostat marker without"):
        apply_block(f"notes\n{BEGIN}\nhalf a block\n", "body", "AGENTS.md")
    with pytest.raises(ExportError, match="without its BEGIN marker"):
        apply_block(f"notes\n{END}\n", "body", "AGENTS.md")
    assert extract_block(apply_block("x\n", "body\n", "f")) == "body"


def test_hidden_unicode_is_stripped_from_everything_written() -> None:
    sneaky = rule("r", ("src/**",))
    sneaky = Entry(
        **{
            **sneaky._asdict(),
            "view": "**Rule r** (r)\nUse\u200b the\u202e API.\n",
        }
    )
    for text in (claude_file(sneaky), cursor_file(sneaky), copilot_file(sneaky)):
        assert "\u200b" not in text and "\u202e" not in text and "Use the API." in text
    assert clean("a\u2066b\ufeffc") == "abc"


def test_documents_go_under_agents_homeostat(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "billing", "https://github.com/example/billing")
    export(capsys, str(repo), "--kb", str(kb))
    doc = (repo / ".agents/homeostat/billing/api/overview.md").read_text(encoding="utf-8")
    assert doc.startswith("# Billing API overview\n") and "## Errors {#errors}" in doc
    assert (
        "`.agents/homeostat/billing/api/overview.md`: Billing API overview"
        in (repo / "AGENTS.md").read_text()
    )


def test_brace_expansion() -> None:
    assert expand_braces("a/{b,c{1,2}}/*.{ts,tsx}") == [
        "a/b/*.ts",
        "a/b/*.tsx",
        "a/c1/*.ts",
        "a/c1/*.tsx",
        "a/c2/*.ts",
        "a/c2/*.tsx",
    ]
    assert expand_braces("a/{b}.py") == ["a/{b}.py"]
    assert plan_export([], [], ["claude"]).files == {}


def test_a_repo_marked_public_in_the_config_needs_allow_public(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=CLONE_STATE)
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text().replace("  - name: storefront\n", "  - name: storefront\n    public: true\n")
    )
    checkout = tmp_path / "storefront"
    checkout.mkdir()
    assert main(["export", str(checkout), "--kb", str(kb), "--repo", "storefront"]) == 2
    assert "the repo is public" in capsys.readouterr().err
    assert not list(checkout.rglob("*"))
    assert main(["export", str(checkout), "--kb", str(kb), "--repo", "storefront", "--allow-public"]) == 0


@pytest.mark.parametrize(
    "title", ["Retries: at most three", "Use C# records #not-a-comment", 'Say "no" \\ politely']
)
def test_a_cursor_description_survives_colons_hashes_and_quotes(title: str) -> None:
    entry = rule("r", ("src/**",))._replace(title=title)
    front = cursor_file(entry).split("---\n")[1]
    description = next(line for line in front.splitlines() if line.startswith("description:"))
    assert yaml.safe_load(description) == {"description": title}
