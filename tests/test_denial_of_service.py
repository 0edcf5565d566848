"""Inputs built to exhaust a reader end in one clear finding or answer, never a stalled run.

Speed itself is measured in benchmarks/bench_adversarial.py (time per KB of each scanner on
adversarial inputs up to 1 MB); these tests hold the behaviour: a "billion laughs" YAML anchor in
homeostat.yaml, a rule's scope or eval/selection.yaml is one located error, and the commands that
meet one finish (each runs in a subprocess with a time limit, so a regression fails, not hangs).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kbfactory import EXAMPLE

from homeostat.core.evaluation import EvalError, parse_cases
from homeostat.core.yamltext import YamlError, load_full, load_yaml

SECONDS = 120


def laughs(levels: int = 9, key: str = "lol") -> str:
    """Anchors of nine aliases of the anchor before: 9**levels values from a few hundred bytes."""
    lines = [f"  {key}0: &{key}0 [ha, ha, ha, ha, ha, ha, ha, ha, ha]"]
    for level in range(1, levels):
        ref = f"*{key}{level - 1}"
        lines.append(f"  {key}{level}: &{key}{level} [{', '.join([ref] * 9)}]")
    return "\n".join(lines)


def homeostat(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    return subprocess.run(
        [sys.executable, "-m", "homeostat", *argv],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env=env,
        check=False,
    )


def test_an_alias_bomb_is_a_located_error_and_ordinary_aliases_still_read() -> None:
    bomb = "bombs:\n" + laughs(6)  # half a million values: in process, a regression fails in seconds
    with pytest.raises(YamlError, match="aliases expand to more values than the text holds") as caught:
        load_yaml(bomb)
    assert caught.value.line >= 1
    shared = "base: &b [src/**, lib/**]\nweb: *b\napi: *b\n"
    assert load_full(shared).data == {
        "base": ["src/**", "lib/**"],
        "web": ["src/**", "lib/**"],
        "api": ["src/**", "lib/**"],
    }


def test_an_alias_bomb_in_the_selection_cases_is_an_eval_error() -> None:
    with pytest.raises(EvalError, match=r"^eval/selection\.yaml:\d+: not valid YAML \(YAML aliases expand"):
        parse_cases("x:\n" + laughs(6) + "\ncases: [{files: [a.py], expect: [r]}]\n")


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    return root


def test_validate_and_context_finish_on_a_bomb_in_homeostat_yaml(kb: Path) -> None:
    config = kb / "homeostat.yaml"
    config.write_text(config.read_text() + "x-anchors:\n" + laughs() + "\n")
    done = homeostat("validate", "--kb", str(kb), "--today", "2026-11-29", "--format", "json")
    assert done.returncode == 1
    [finding] = [f for f in json.loads(done.stdout)["findings"] if f["file"] == "homeostat.yaml"]
    assert "YAML aliases expand to more values than the text holds" in finding["message"]
    done = homeostat("context", "--files", "src/app.py", "--repo", "billing", "--kb", str(kb))
    assert done.returncode != 0
    assert "homeostat.yaml:" in done.stderr and "YAML aliases expand" in done.stderr


def test_validate_and_context_finish_on_a_bomb_in_a_rules_scope(kb: Path) -> None:
    rule = kb / "knowledge/core/log-with-fields.md"
    text = rule.read_text()
    bomb = "x-anchors:\n" + laughs() + "\nscope: *lol8\n"
    rule.write_text(text.replace('scope: ["**/*.py", "**/*.ts"]\n', bomb))
    done = homeostat("validate", "--kb", str(kb), "--today", "2026-11-29", "--format", "json")
    assert done.returncode == 1
    messages = [
        f["message"] for f in json.loads(done.stdout)["findings"] if f["file"].endswith("log-with-fields.md")
    ]
    assert any("YAML aliases expand to more values than the text holds" in m for m in messages), messages
    done = homeostat("context", "--files", "src/app.py", "--repo", "billing", "--kb", str(kb))
    assert done.returncode == 0, done.stderr
    assert "log-with-fields.md" in done.stderr  # left out, and said
