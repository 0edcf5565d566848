"""Always-on exports stay within their budgets (`distribution.exports`), filled in `context`'s order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from commands.test_exports import CLONE_STATE, EVAL150, code_repo, export

from homeostat.core.export.budget import Limit, size_of
from homeostat.core.export.formats import (
    AGENTS_FILE,
    CLAUDE_DIR,
    COPILOT_MAIN,
    apply_block,
    extract_block,
    parse_agents,
    plan_export,
)
from homeostat.core.selection.entries import Entry


def rule(rule_id: str, scope: tuple[str, ...], score: int = 50) -> Entry:
    view = f"**Rule {rule_id}** ({rule_id})\nDo the thing for {rule_id}.\nWhy: because.\n"
    return Entry(
        rule_id,
        f"Rule {rule_id}",
        "a",
        "",
        scope,
        "convention",
        True,
        "accepted",
        score,
        (),
        view,
        view,
        9,
        9,
    )


def test_each_always_on_export_is_filled_in_rank_order_within_its_budget() -> None:
    everywhere = [rule(f"g{i:03}", ("**",)) for i in range(120)]
    scoped = [rule(f"s{i:03}", ("src/**",)) for i in range(30)]
    order = [e.id for e in reversed(everywhere)]  # the ranking, not the ids, decides who goes first
    limits = {"claude": Limit(lines=40), "copilot": Limit(chars=4000), "agents": Limit(lines=200)}
    plan = plan_export([*everywhere, *scoped], [], limits=limits, order=order)
    for fmt, limit in limits.items():
        assert plan.sizes[fmt].lines <= (limit.lines or 10**9)
        assert plan.sizes[fmt].chars <= (limit.chars or 10**9)
        assert plan.left_out[fmt], fmt
    claude = [rel for rel in plan.files if rel.startswith(CLAUDE_DIR) and "/g" in rel]
    assert claude and all(rel.removeprefix(CLAUDE_DIR).removesuffix(".md") > "g1" for rel in claude)
    assert all(f"{CLAUDE_DIR}{e.id}.md" in plan.files for e in scoped)  # path-scoped: always written
    assert size_of(plan.files[rel] for rel in claude) == plan.sizes["claude"]
    listed = parse_agents(apply_block(None, plan.blocks[AGENTS_FILE], AGENTS_FILE))
    assert set(listed).isdisjoint(plan.left_out["agents"])
    assert len(listed) + len(plan.left_out["agents"]) == 150
    block = plan.blocks[AGENTS_FILE]
    assert f"{len(plan.left_out['agents'])} more team rules did not fit" in block
    assert "(`search`)" in plan.blocks[COPILOT_MAIN]


def test_without_budgets_everything_is_exported() -> None:
    plan = plan_export([rule(f"g{i}", ("**",)) for i in range(300)], [])
    assert not any(plan.left_out.values())
    assert len(parse_agents(apply_block(None, plan.blocks[AGENTS_FILE], AGENTS_FILE))) == 300


@pytest.fixture
def kb150(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(EVAL150, root, ignore=CLONE_STATE)
    return root


def test_export_says_what_it_left_out_and_check_fails_over_budget(
    tmp_path: Path, kb150: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = code_repo(tmp_path, "payments", "https://github.com/acme/payments.git")
    code, out, _ = export(capsys, "--checkout", str(repo), "--kb", str(kb150))
    assert code == 0
    assert "AGENTS.md block: " in out and "left out by its budget of 200 lines and 32,768 characters" in out
    block = extract_block((repo / "AGENTS.md").read_text(encoding="utf-8")) or ""
    assert len(block.splitlines()) <= 200
    code, out, _ = export(capsys, "--checkout", str(repo), "--kb", str(kb150), "--check", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["overBudget"] == []
    assert data["budgets"]["agents"]["limit"] == {"lines": 200, "chars": 32768}
    assert data["budgets"]["agents"]["onDisk"]["lines"] <= 200
    assert data["leftOut"]["agents"] and not set(data["leftOut"]["agents"]) & set(
        parse_agents((repo / "AGENTS.md").read_text(encoding="utf-8"))
    )
    # The team lowers a budget: the files in the checkout are now over it, and CI says so.
    with (kb150 / "homeostat.yaml").open("a", encoding="utf-8") as config:
        config.write("distribution:\n  exports:\n    agents: {lines: 60}\n")
    code, out, _ = export(capsys, "--checkout", str(repo), "--kb", str(kb150), "--check")
    assert code == 1
    assert "over budget: AGENTS.md block: " in out and "over the budget of 60 lines" in out
    assert "export: over budget (above); run homeostat export to fit the budgets" in out
    assert export(capsys, "--checkout", str(repo), "--kb", str(kb150))[0] == 0
    assert export(capsys, "--checkout", str(repo), "--kb", str(kb150), "--check")[0] == 0


def test_a_bad_budget_is_one_line_naming_the_key(
    tmp_path: Path, kb150: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (kb150 / "homeostat.yaml").open("a", encoding="utf-8") as config:
        config.write("distribution:\n  exports:\n    copilot: {chars: lots}\n")
    repo = code_repo(tmp_path, "payments", "https://github.com/acme/payments.git")
    code, _, err = export(capsys, "--checkout", str(repo), "--kb", str(kb150))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "homeostat.yaml" in lines[0] and "chars" in lines[0], err


def test_a_budget_smaller_than_the_blocks_header_is_said(
    tmp_path: Path, kb150: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (kb150 / "homeostat.yaml").open("a", encoding="utf-8") as config:
        config.write("distribution:\n  exports:\n    agents: {lines: 2}\n")
    repo = code_repo(tmp_path, "payments", "https://github.com/acme/payments.git")
    code, _, err = export(capsys, "--checkout", str(repo), "--kb", str(kb150))
    assert code == 0
    assert "AGENTS.md block: " in err and "over the budget of 2 lines" in err and "raise it" in err
    assert not parse_agents((repo / "AGENTS.md").read_text(encoding="utf-8"))  # no rule fits
    assert export(capsys, "--checkout", str(repo), "--kb", str(kb150), "--check")[0] == 1
